/**
 * `evsync audit` as users run it (the built CLI) against the sandbox in its own process,
 * after a plain `evsync run` of the same job has synced a generated users CSV (PostgreSQL
 * ledger, a fresh database per size). Issue #27 item 6: the read-back goes through the
 * job's rate limit, so its floor is its calls ÷ that rate; a 100,000-user audit should take
 * that floor plus at most 20 %, at a peak RSS within 1.2× of the plain run's.
 *
 * The run is not limited (its rate is not what is measured); before the audit the sandbox
 * is limited to `rate`/s per key and the job's `rate.per_second` set to the same, as an
 * operator sets it to the platform's published limit. 100,000 users are 1,001 pages of 100
 * (the last one empty, docs/audit.md "Memory and calls"): 50 s at 20 pages/s.
 *
 * With `changed=P`, P % of the users get another last name on the platform after the run
 * (signed PUTs, as an organiser's edits), so the audit finds and writes that many `changed`
 * entries (exit 1): its memory with drift.
 *
 *   npx tsx test/bench/audit.ts [sizes=10000,100000] [rate=20] [changed=0]
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PlatformClient } from '../../src/platform/platform-client.js';
import {
  spawnCli,
  cliEnvFor,
  clientFor,
  dropDatabase,
  freshDatabase,
  machineLoad,
  ROOT,
  startSandboxProcess,
  usersCsvFile,
  type SandboxProcess,
} from './sync-bench-support.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';

const sizes = (process.argv[2] ?? '10000,100000').split(',').map(Number);
const rate = Number(process.argv[3] ?? 20);
const changedPercent = Number(process.argv[4] ?? 0);
const CLI = join(ROOT, 'dist/cli/main.js');

/** Renames every (100 / `percent`)th user of the conference, 16 at a time; answers how many. */
async function changeOnPlatform(sandbox: SandboxProcess, percent: number): Promise<number> {
  const client: PlatformClient = clientFor(sandbox, 10_000, 16);
  try {
    const every = Math.round(100 / percent);
    const ids: number[] = [];
    let at = 0;
    for await (const user of client.users.list({ limit: 100 })) if (at++ % every === 0) ids.push(user.id);
    const rename = async (): Promise<void> => {
      for (let id = ids.pop(); id !== undefined; id = ids.pop())
        await client.users.update(id, { 'user[last_name]': `Renamed${id}` });
    };
    const count = ids.length;
    await Promise.all(Array.from({ length: 16 }, rename));
    return count;
  } finally {
    await client.close();
  }
}

function jobFile(dir: string, csv: string, perSecond: number): string {
  const file = join(dir, 'job.yaml');
  writeFileSync(
    file,
    `name: audit-bench\nrate: { per_second: ${perSecond}, concurrency: 16 }\n` +
      `steps:\n  - { mapping: users, source: { csv: ${JSON.stringify(csv)} } }\n`,
  );
  return file;
}

async function measure(size: number): Promise<void> {
  const csv = await usersCsvFile(size);
  const dir = join(tmpdir(), `evsync-bench-audit-${process.pid}`);
  await removeWorkspace(dir);
  mkdirSync(dir, { recursive: true });
  const database = `evsync_bench_audit_${process.pid}`;
  const url = await freshDatabase(database);
  const sandbox = await startSandboxProcess();
  try {
    const env = cliEnvFor(sandbox, { DATABASE_URL: url });
    const run = await spawnCli(CLI, ['run', jobFile(dir, csv, 10_000)], dir, env);
    // Exit 1: the generator's invalid rows failed, as they must. Anything else is no figure.
    if (run.code !== 0 && run.code !== 1) throw new Error(`evsync run exited ${run.code}: ${run.stderr}`);

    const renamed = changedPercent > 0 ? await changeOnPlatform(sandbox, changedPercent) : 0;
    const limited = await fetch(`${sandbox.url}/_sandbox/rate-limit`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ perSecond: rate }),
    });
    if (!limited.ok) throw new Error(`the sandbox refused the rate limit: ${limited.status}`);
    await sandbox.resetCounters();
    const spawnedAt = Date.now();
    const audit = await spawnCli(CLI, ['audit', '--json', jobFile(dir, csv, rate)], dir, env);
    // Exit 1 when users were renamed on the platform: the drift it must find.
    if (audit.code !== (renamed > 0 ? 1 : 0))
      throw new Error(`evsync audit exited ${audit.code}: ${audit.stderr}\n${audit.stdout}`);
    const counters = await sandbox.counters();
    const refused = counters.statuses['429'] ?? 0;
    const users = (JSON.parse(audit.stdout) as { summary: { user: Record<string, number> } }).summary.user;
    const onPlatform = (users.in_sync ?? 0) + (users.changed ?? 0) + (users.extra ?? 0);
    // The floor: the pages the platform's users fill, and the empty one that ends them,
    // at the rate. Pages asked ahead past the end (docs/audit.md) are the audit's cost.
    const pages = Math.ceil(onPlatform / 100) + 1;
    const floor = pages / rate;
    const sourcesS = ((counters.firstAt ?? spawnedAt) - spawnedAt) / 1000;
    const pagingS = ((counters.lastAt ?? 0) - (counters.firstAt ?? 0)) / 1000;
    console.log(
      `${String(size).padStart(7)} users: run ${run.seconds.toFixed(1)} s, peak RSS ${run.peakRssMb} MB (exit ${run.code})\n` +
        `    audit ${audit.seconds.toFixed(1)} s: ${pages} pages at ${rate}/s, floor ${floor.toFixed(1)} s, ` +
        `× ${(audit.seconds / floor).toFixed(2)} (target ≤ 1.2); peak RSS ${audit.peakRssMb} MB, ` +
        `× ${(audit.peakRssMb / run.peakRssMb).toFixed(2)} of the run's (target ≤ 1.2)\n` +
        `    ${counters.total} calls (${refused} answered 429); spawn to first call ${sourcesS.toFixed(1)} s, ` +
        `first to last call ${pagingS.toFixed(1)} s; users ${JSON.stringify(users)}` +
        (renamed > 0 ? `; ${renamed} renamed on the platform` : ''),
    );
  } finally {
    await sandbox.stop();
    await dropDatabase(database);
    await removeWorkspace(dir);
  }
}

if (!existsSync(CLI)) throw new Error('build the CLI first: npm run build');
console.log(
  `audit: sizes ${sizes.join(', ')}, read rate ${rate}/s, ${changedPercent} % renamed on the platform, ` +
    `PostgreSQL ledger; ${machineLoad()}`,
);
for (const size of sizes) await measure(size);
