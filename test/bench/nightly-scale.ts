/**
 * The nightly run at scale (issue #28), as users run it: the built CLI (`node dist/cli/main.js
 * run`), the sandbox in its own process, a generated users CSV of 200,000 rows. Per ledger
 * (embedded, then a fresh PostgreSQL database): the first import; the same file a night later
 * with 1 % of the people renamed; then the same file again (0 % changed). For each run: wall
 * time, peak RSS (VmHWM of the evsync process), platform calls, and the ledger's growth in
 * bytes (the embedded ledger's folder, or `pg_database_size`). Beside them, the sequential
 * floor: reading, mapping and hashing the same CSV in this process, with nothing else.
 *
 * Targets: the 1 % nightly run ≤ 10 % of the import's time, exactly the changed rows sent,
 * peak RSS ≤ 400 MB on PostgreSQL, ledger growth ≤ 5 % of the import's; the 0 % run ≤ 8 %;
 * the ledger ≤ 300 MB after the import.
 *
 * The third argument runs another build's CLI (a checkout of the commit before a change,
 * built), so that a before/after pair is measured in one sitting.
 *
 *   npx tsx test/bench/nightly-scale.ts [users=200000] [ledgers=embedded,postgres] [cli=dist/cli/main.js]
 */
import { Erasures } from '../../src/sync/collect/erasures.js';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadJobFile } from '../../src/sync/job-file.js';
import { streamCollected } from '../../src/sync/collect/collect-intents.js';
import { hashIntent } from '../../src/sync/plan/params-hash.js';
import { isChangedUsersRow, isInvalidUsersRow } from './generate-users-csv.js';
import {
  cliEnvFor,
  dropDatabase,
  fmt,
  freshDatabase,
  machineLoad,
  ROOT,
  startSandboxProcess,
  spawnCli,
  usersCsvFile,
  type SandboxProcess,
} from './sync-bench-support.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';

const users = Number(process.argv[2] ?? 200_000);
const ledgers = (process.argv[3] ?? 'embedded,postgres').split(',') as Array<'embedded' | 'postgres'>;
const CHANGED_PERCENT = 1;
const CLI = process.argv[4] ?? join(ROOT, 'dist/cli/main.js');

interface RunFigures {
  code: number | null;
  seconds: number;
  peakRssMb: number;
  calls: number;
  growthBytes: number;
  sizeBytes: number;
}

function folderBytes(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  let total = 0;
  for (const name of readdirSync(path)) total += folderBytes(join(path, name));
  return total;
}

async function databaseBytes(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // What the ledger's writes left behind, as the server holds it on disk.
    await client.query('CHECKPOINT');
    const { rows } = await client.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n');
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

function writeJob(dir: string, csv: string): string {
  const job = join(dir, 'job.yaml');
  writeFileSync(
    job,
    `name: nightly\nrate: { per_second: 10000, concurrency: 16 }\nsteps:\n` +
      `  - { mapping: users, source: { csv: ${JSON.stringify(csv)} } }\n`,
  );
  return job;
}

async function runOnce(
  sandbox: SandboxProcess,
  dir: string,
  env: NodeJS.ProcessEnv,
  size: () => Promise<number>,
): Promise<RunFigures> {
  const before = await size();
  await sandbox.resetCounters();
  const { code, seconds, peakRssMb, stderr } = await spawnCli(CLI, ['run', join(dir, 'job.yaml')], dir, env);
  // Exit 1: the generator's invalid rows failed, as they must. Anything else is no figure.
  if (code !== 0 && code !== 1) throw new Error(`evsync run exited ${code}: ${stderr}`);
  const calls = (await sandbox.counters()).total;
  const after = await size();
  return { code, seconds, peakRssMb, calls, growthBytes: after - before, sizeBytes: after };
}

/** The floor: the CSV read, mapped and hashed in this process, nothing stored or sent. */
async function readAndHash(job: string): Promise<{ seconds: number; intents: number }> {
  const loaded = loadJobFile(job);
  const started = performance.now();
  let intents = 0;
  for await (const row of streamCollected(loaded, { vendor: 'svc', erasures: Erasures.none() })) {
    for (const intent of row.intents) {
      hashIntent(intent.op, intent.params);
      intents += 1;
    }
  }
  return { seconds: (performance.now() - started) / 1000, intents };
}

const mb = (bytes: number): string => `${fmt(bytes / 1024 / 1024, 1)} MB`;
const pct = (part: number, whole: number): string => `${fmt((100 * part) / whole, 1)} %`;

async function measure(ledger: 'embedded' | 'postgres'): Promise<void> {
  const base = await usersCsvFile(users);
  const changedFile = await usersCsvFile(users, undefined, CHANGED_PERCENT);
  let changed = 0;
  for (let i = 1; i <= users; i++)
    if (isChangedUsersRow(i, CHANGED_PERCENT) && !isInvalidUsersRow(i)) changed++;
  const dir = join(tmpdir(), `evsync-bench-nightly-${process.pid}`);
  await removeWorkspace(dir);
  mkdirSync(dir, { recursive: true });
  const database = `evsync_bench_nightly_${process.pid}`;
  const sandbox = await startSandboxProcess();
  try {
    const url = ledger === 'postgres' ? await freshDatabase(database) : '';
    const env = cliEnvFor(sandbox, { EVSYNC_DATA_DIR: join(dir, 'ledger'), DATABASE_URL: url });
    const size = (): Promise<number> =>
      ledger === 'postgres' ? databaseBytes(url) : Promise.resolve(folderBytes(join(dir, 'ledger')));
    const floorJob = writeJob(dir, changedFile);
    const floor = await readAndHash(floorJob);
    writeJob(dir, base);
    const created = await size();
    const first = await runOnce(sandbox, dir, env, size);
    writeJob(dir, changedFile);
    const nightly = await runOnce(sandbox, dir, env, size);
    const quiet = await runOnce(sandbox, dir, env, size);
    const importGrowth = first.sizeBytes - created;
    const line = (name: string, r: RunFigures): string =>
      `${ledger.padEnd(8)} ${name.padEnd(14)} exit ${r.code}, ${fmt(r.seconds, 1)} s, ${fmt(r.calls)} calls, ` +
      `peak RSS ${r.peakRssMb} MB, ledger +${mb(r.growthBytes)} (now ${mb(r.sizeBytes)})`;
    console.log(line('import', first));
    console.log(line(`${CHANGED_PERCENT} % changed`, nightly));
    console.log(line('0 % changed', quiet));
    console.log(
      `${ledger.padEnd(8)} floor (read + map + hash ${fmt(floor.intents)} users in-process): ${fmt(floor.seconds, 1)} s`,
    );
    const verdict = (ok: boolean): string => (ok ? 'met' : 'NOT met');
    console.log(
      `${ledger}: ${CHANGED_PERCENT} % night: ${pct(nightly.seconds, first.seconds)} of the import's time ` +
        `(target ≤ 10 %: ${verdict(nightly.seconds <= first.seconds * 0.1)}), ${fmt(nightly.seconds / floor.seconds, 2)}× the floor; ` +
        `calls ${nightly.calls} for ${changed} changed rows (${nightly.calls === changed ? 'exactly' : 'MISMATCH'}); ` +
        `peak RSS ${nightly.peakRssMb} MB${ledger === 'postgres' ? ` (target ≤ 400 MB: ${verdict(nightly.peakRssMb <= 400)})` : ''}; ` +
        `growth ${pct(nightly.growthBytes, importGrowth)} of the import's (target ≤ 5 %: ${verdict(nightly.growthBytes <= importGrowth * 0.05)})`,
    );
    console.log(
      `${ledger}: 0 % night: ${pct(quiet.seconds, first.seconds)} of the import's time ` +
        `(target ≤ 8 %: ${verdict(quiet.seconds <= first.seconds * 0.08)}), ${fmt(quiet.seconds / floor.seconds, 2)}× the floor; ` +
        `calls ${quiet.calls}; growth ${pct(quiet.growthBytes, importGrowth)} of the import's`,
    );
    console.log(
      `${ledger}: ledger after the import ${mb(first.sizeBytes)} (${fmt(importGrowth / users)} bytes per user; ` +
        `target ≤ 300 MB: ${verdict(first.sizeBytes <= 300 * 1024 * 1024)})`,
    );
  } finally {
    await sandbox.stop();
    if (ledger === 'postgres') await dropDatabase(database);
    await removeWorkspace(dir);
  }
}

if (!existsSync(CLI)) throw new Error('build the CLI first: npm run build');
console.log(`nightly-scale: ${fmt(users)} users, ${CLI}, ${machineLoad()}`);
for (const ledger of ledgers) await measure(ledger);
