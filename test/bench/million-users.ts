/**
 * `evsync run` of a generated users CSV against the sandbox in its own process, as a
 * user runs it (the built CLI, `node dist/cli/main.js run`), at growing sizes: peak RSS of
 * the evsync process (its VmHWM, read from /proc while it runs), time from the spawn to the
 * sandbox's first request, and intents/s. Issue #16's targets: at 1,000,000 users peak
 * RSS ≤ 1 GB with the embedded ledger and ≤ 600 MB with PostgreSQL, RSS flat in the
 * number of users, and the first request within 2× of a small run's.
 *
 * With `shared=P` the same number of people come from two steps that share P % of them
 * (issue #26: people merged across steps, peak RSS within 1.2× of the one-step figure).
 *
 *   npx tsx test/bench/million-users.ts [sizes=1000,100000,200000,1000000] [ledgers=embedded,postgres] [shared=0]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INVALID_ROW_SHARE } from './generate-users-csv.js';
import {
  cliEnvFor,
  dropDatabase,
  freshDatabase,
  machineLoad,
  peakRssOf,
  ROOT,
  startSandboxProcess,
  usersCsvFile,
} from './sync-bench-support.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';

const sizes = (process.argv[2] ?? '1000,100000,200000,1000000').split(',').map(Number);
const ledgers = (process.argv[3] ?? 'embedded,postgres').split(',') as Array<'embedded' | 'postgres'>;
const shared = Number(process.argv[4] ?? 0);
const CLI = join(ROOT, 'dist/cli/main.js');

interface Measured {
  ledger: string;
  users: number;
  code: number | null;
  seconds: number;
  firstRequestMs: number | undefined;
  peakRssMb: number;
  calls: number;
}

/**
 * The job's steps: one CSV of `users` people, or (`shared` > 0) two whose rows overlap by
 * `shared` % of the people, the second's keyed `c-<i>`: people 1..a and a-s+1..users.
 */
async function stepsOf(users: number): Promise<string> {
  const step = (csv: string) => `  - { mapping: users, source: { csv: ${JSON.stringify(csv)} } }\n`;
  if (shared <= 0) return step(await usersCsvFile(users));
  const both = Math.round((users * shared) / 100);
  const first = Math.round((users + both) / 2);
  const a = await usersCsvFile(first);
  const b = await usersCsvFile(users, { from: first - both + 1, prefix: 'c' });
  return step(a) + step(b);
}

async function measure(ledger: 'embedded' | 'postgres', users: number): Promise<Measured> {
  const steps = await stepsOf(users);
  const dir = join(tmpdir(), `evsync-bench-million-${process.pid}`);
  await removeWorkspace(dir);
  mkdirSync(dir, { recursive: true });
  const job = join(dir, 'job.yaml');
  writeFileSync(job, `name: million\nrate: { per_second: 10000, concurrency: 16 }\nsteps:\n${steps}`);
  const database = `evsync_bench_million_${process.pid}`;
  const sandbox = await startSandboxProcess();
  try {
    const env = cliEnvFor(sandbox, {
      EVSYNC_DATA_DIR: join(dir, 'ledger'),
      DATABASE_URL: ledger === 'postgres' ? await freshDatabase(database) : '',
    });
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, 'run', job], {
      cwd: dir,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString();
    });
    let peak = 0;
    let firstRequestMs: number | undefined;
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let done = false;
    void exited.then(() => (done = true));
    while (!done) {
      peak = Math.max(peak, peakRssOf(child.pid) ?? 0);
      if (firstRequestMs === undefined && (await sandbox.counters()).total > 0)
        firstRequestMs = performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, firstRequestMs === undefined ? 5 : 200));
    }
    const code = await exited;
    const seconds = (performance.now() - started) / 1000;
    // Exit 1: the generator's invalid rows failed, as they must. Anything else is no figure.
    if (code !== 0 && code !== 1) throw new Error(`evsync run exited ${code}: ${stderr}`);
    const calls = (await sandbox.counters()).total;
    return { ledger, users, code, seconds, firstRequestMs, peakRssMb: Math.round(peak), calls };
  } finally {
    await sandbox.stop();
    if (ledger === 'postgres') await dropDatabase(database);
    await removeWorkspace(dir);
  }
}

if (!existsSync(CLI)) throw new Error('build the CLI first: npm run build');
console.log(
  `million-users: sizes ${sizes.join(', ')}${shared > 0 ? `, two steps sharing ${shared} % of the people` : ''}; ${machineLoad()}`,
);
const results: Measured[] = [];
for (const ledger of ledgers) {
  for (const users of sizes) {
    const m = await measure(ledger, users);
    results.push(m);
    const valid = Math.round(users * (1 - INVALID_ROW_SHARE));
    console.log(
      `${ledger.padEnd(8)} ${String(users).padStart(8)} users: exit ${m.code}, ${m.seconds.toFixed(1)} s, ` +
        `${Math.round(m.calls / m.seconds)} calls/s (${m.calls} calls, ~${valid} valid rows), ` +
        `first request after ${m.firstRequestMs?.toFixed(0) ?? '–'} ms, peak RSS ${m.peakRssMb} MB`,
    );
  }
  const own = results.filter((r) => r.ledger === ledger);
  const small = own[0];
  const big = own[own.length - 1];
  if (small && big && big !== small) {
    const perIntent = ((big.peakRssMb - small.peakRssMb) * 1024 * 1024) / (big.users - small.users);
    const target = ledger === 'embedded' ? 1024 : 600;
    console.log(
      `${ledger}: RSS growth ${perIntent.toFixed(0)} bytes per user from ${small.users} to ${big.users}; ` +
        `peak at ${big.users}: ${big.peakRssMb} MB (target ≤ ${target} MB: ${big.peakRssMb <= target ? 'met' : 'NOT met'}); ` +
        `first request ${big.firstRequestMs?.toFixed(0)} vs ${small.firstRequestMs?.toFixed(0)} ms ` +
        `(× ${((big.firstRequestMs ?? NaN) / (small.firstRequestMs ?? NaN)).toFixed(2)}, target ≤ 2)`,
    );
  }
}
