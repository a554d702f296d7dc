/**
 * Ledger writes: the final results of N intents (default 100,000) recorded through the
 * batched ResultWriter, as the engine does, on the embedded ledger (PGlite, file-backed)
 * and on PostgreSQL. Target (docs/design.md, "Performance targets"): ≥ 10,000 results/s embedded. Baseline: the same
 * results written one row per call, on a sample.
 *
 *   npx tsx test/bench/ledger-writes.ts [--rows 100000] [--batch 1000] [--adapter both|embedded|postgres]
 *
 * Each adapter runs in its own child process so that its peak RSS is its own.
 * PostgreSQL: DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test, in a scratch schema.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { Ledger } from '../../src/ledger/ledger.js';
import type { IntentResultInput } from '../../src/model/result-records.js';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { openPgliteClient } from '../../src/ledger/pglite-client.js';

const TARGET_PER_SECOND = 10_000;
/** MEASURED.md: 20 multi-row INSERTs of 1,000 plain rows on file-backed PGlite, unloaded machine. */
const MEASURED_PLAIN_PER_SECOND = 75_000;
const BASELINE_ROWS = 2_000;

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    batch: { type: 'string', default: '1000' },
    adapter: { type: 'string', default: 'both' },
  },
});
const rows = Number(values.rows);
const batchSize = Number(values.batch);
const pgUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

function result(runId: string, i: number, action: IntentResultInput['action']): IntentResultInput {
  return {
    runId,
    kind: 'user',
    key: `user-${i}`,
    action,
    origin: { source: 'data/users.csv', row: i + 1, line: i + 2 },
    platformId: action === 'failed' ? null : 1_000_000 + i,
    httpStatus: action === 'failed' ? 422 : 200,
    errorCode: action === 'failed' ? 'PLATFORM_VALIDATION' : null,
    errorMessage: action === 'failed' ? 'user[email] is invalid' : null,
    attempts: 1,
    durationMs: 20 + (i % 17),
    hash: `sha256-${i.toString(16).padStart(12, '0')}`,
    params: {
      'user[first_name]': `First${i}`,
      'user[last_name]': `Last${i}`,
      'user[email]': `user${i}@example.com`,
      'user[company]': 'Example Corp',
      'user[svc_auth_attributes][password]': 'not-stored',
    },
  };
}

async function measure(ledger: Ledger, label: string, openMs: number): Promise<void> {
  const rssAfterOpenMb = process.memoryUsage().rss / 1024 / 1024;
  const run = await ledger.createRun({ jobName: 'bench-ledger-writes', mode: 'upsert' });
  const writer = ledger.resultWriter({ batchSize });
  const started = performance.now();
  for (let i = 0; i < rows; i += 1)
    await writer.write(result(run.id, i, i % 100 === 99 ? 'failed' : 'created'));
  await writer.close();
  const seconds = (performance.now() - started) / 1000;
  const counts = await ledger.resultCounts(run.id);
  const stored = (counts.user?.created ?? 0) + (counts.user?.failed ?? 0);
  if (stored !== rows) throw new Error(`expected ${rows} results in the ledger, found ${stored}`);

  // Baseline: what one INSERT per result costs (sampled: it is the slow path).
  const baseRun = await ledger.createRun({ jobName: 'bench-ledger-writes-baseline', mode: 'upsert' });
  const baseStart = performance.now();
  for (let i = 0; i < BASELINE_ROWS; i += 1) await ledger.recordResults([result(baseRun.id, i, 'created')]);
  const basePerSecond = BASELINE_ROWS / ((performance.now() - baseStart) / 1000);

  const perSecond = rows / seconds;
  const rssMb = process.resourceUsage().maxRSS / 1024;
  console.log(
    [
      `${label}: ${rows.toLocaleString('en')} results in ${seconds.toFixed(2)} s = ${Math.round(perSecond).toLocaleString('en')} results/s`,
      `(batch ${batchSize}; target ${TARGET_PER_SECOND.toLocaleString('en')}/s → ×${(perSecond / TARGET_PER_SECOND).toFixed(2)})`,
      `| one row per call: ${Math.round(basePerSecond).toLocaleString('en')}/s → batched is ×${(perSecond / basePerSecond).toFixed(1)}`,
      `| open ${openMs} ms | RSS after open ${rssAfterOpenMb.toFixed(0)} MB, peak ${rssMb.toFixed(0)} MB`,
    ].join(' '),
  );
}

async function benchEmbedded(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'evsync-bench-ledger-'));
  try {
    const opened = performance.now();
    const ledger = await openLedger({ dataDir, databaseUrl: '' });
    const openMs = Math.round(performance.now() - opened);
    try {
      await measure(ledger, 'embedded (PGlite, file)', openMs);
    } finally {
      await ledger.close();
    }
    await calibrate(dataDir);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * The machine is shared: how fast is PGlite here right now, on the MEASURED.md workload?
 * The ratio to MEASURED.md's figure scales our result to an unloaded machine.
 */
async function calibrate(dataDir: string): Promise<void> {
  const { client } = await openPgliteClient(dataDir);
  try {
    await client.execScript('CREATE TABLE calibration (id integer, name text, email text)');
    const started = performance.now();
    for (let chunk = 0; chunk < 20; chunk += 1) {
      const rows = Array.from(
        { length: 1000 },
        (_, i) => `(${chunk * 1000 + i}, 'Name ${i}', 'u${i}@example.com')`,
      );
      await client.query(`INSERT INTO calibration VALUES ${rows.join(', ')}`);
    }
    const perSecond = 20_000 / ((performance.now() - started) / 1000);
    console.log(
      `  calibration: plain 1,000-row INSERTs here now ${Math.round(perSecond).toLocaleString('en')} rows/s ` +
        `vs ${MEASURED_PLAIN_PER_SECOND.toLocaleString('en')} in MEASURED.md → this machine is at ` +
        `${((100 * perSecond) / MEASURED_PLAIN_PER_SECOND).toFixed(0)} % of its measured speed`,
    );
  } finally {
    await client.close();
  }
}

async function benchPostgres(): Promise<void> {
  const schema = `evsync_bench_${randomBytes(4).toString('hex')}`;
  const opened = performance.now();
  const ledger = await openLedger({ databaseUrl: pgUrl, schema });
  const openMs = Math.round(performance.now() - opened);
  try {
    await measure(ledger, 'PostgreSQL', openMs);
  } finally {
    await ledger.close();
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
}

if (values.adapter === 'embedded') await benchEmbedded();
else if (values.adapter === 'postgres') await benchPostgres();
else {
  console.log(
    `ledger-writes: ${rows.toLocaleString('en')} results per adapter; ${cpus().length} cores, load average ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}`,
  );
  const script = fileURLToPath(import.meta.url);
  for (const adapter of ['embedded', 'postgres']) {
    const child = spawnSync(
      process.execPath,
      [
        ...process.execArgv,
        script,
        '--adapter',
        adapter,
        '--rows',
        String(rows),
        '--batch',
        String(batchSize),
      ],
      { stdio: 'inherit' },
    );
    if (child.status !== 0) process.exitCode = 1;
  }
}
