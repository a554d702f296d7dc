/**
 * `evsync resume` of a big run killed half-way, as users run it (the built CLI), issue #28
 * item 3: a generated users CSV of `rows` rows is run on a fresh PostgreSQL database with
 * the sandbox in its own process; once the sandbox has answered half of the valid rows, the
 * run is killed with SIGKILL; then `evsync resume RUN` is spawned. Printed: the resume's
 * peak RSS (VmHWM, read from /proc while it runs; target ≤ 600 MB at 1,000,000 rows), its
 * wall time from spawn to exit, its calls (the other half) and any client_id created twice.
 *
 * `builds` names the CLIs to compare in one sitting, `label=dist folder` each (default
 * `after=<this checkout>/dist`): e.g. the commit before a change built in a temp worktree.
 *
 *   npx tsx test/bench/resume-scale.ts [rows=1000000] [builds=after=./dist,before=/tmp/x/dist]
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { INVALID_ROW_SHARE } from './generate-users-csv.js';
import {
  cliEnvFor,
  dropDatabase,
  freshDatabase,
  machineLoad,
  ROOT,
  spawnCli,
  startSandboxProcess,
  usersCsvFile,
  type SandboxProcess,
} from './sync-bench-support.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';

const rows = Number(process.argv[2] ?? 1_000_000);
const builds = (process.argv[3] ?? `after=${join(ROOT, 'dist')}`).split(',').map((spec) => {
  const [label, dist] = spec.split('=');
  return { label: label ?? 'after', cli: join(resolve(dist ?? join(ROOT, 'dist')), 'cli/main.js') };
});
const TARGET_MB = 600;

interface Measured {
  label: string;
  killedAtCalls: number;
  runSeconds: number;
  resumeCode: number | null;
  resumeSeconds: number;
  resumePeakMb: number;
  resumeCalls: number;
  totalCalls: number;
  duplicates: number;
}

async function lastRunId(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const found = await client.query<{ id: string }>('SELECT id FROM runs ORDER BY seq DESC LIMIT 1');
    const id = found.rows[0]?.id;
    if (id === undefined) throw new Error('the killed run left no run in the ledger');
    return id;
  } finally {
    await client.end();
  }
}

async function measure(label: string, cli: string, csv: string): Promise<Measured> {
  const dir = join(tmpdir(), `evsync-bench-resume-${process.pid}`);
  await removeWorkspace(dir);
  mkdirSync(dir, { recursive: true });
  const job = join(dir, 'job.yaml');
  // Each row's user, then a contact naming that user: the contacts wait in the ledger for
  // the users phase to drain, so the run's whole plan is recorded when it is killed half-way
  // through them, and the resume has half a million intents to send (a run killed in its
  // users phase has its plan cut short: its resume finishes what was recorded).
  writeFileSync(
    join(dir, 'contacts.yaml'),
    'version: 1\ndescription: A contact per user row.\nintents:\n  - kind: contact\n' +
      '    params:\n      user_client_id: client_id\n' +
      // The platform's first user (id 1) as everyone's contact: the CSV has no user ids.
      "      contact_user_id: { column: first_contact, transforms: [{ default: '1' }] }\n",
  );
  const step = (mapping: string) => `  - { mapping: ${mapping}, source: { csv: ${JSON.stringify(csv)} } }\n`;
  writeFileSync(
    job,
    `name: resume-scale\nrate: { per_second: 10000, concurrency: 16 }\nsteps:\n${step('users')}${step('./contacts.yaml')}`,
  );
  const database = `evsync_bench_resume_${process.pid}`;
  let sandbox: SandboxProcess | undefined;
  try {
    sandbox = await startSandboxProcess();
    const counters = sandbox.counters.bind(sandbox);
    const databaseUrl = await freshDatabase(database);
    const env = cliEnvFor(sandbox, { EVSYNC_DATA_DIR: join(dir, 'ledger'), DATABASE_URL: databaseUrl });
    // Every user sent, and half of the contacts.
    const half = Math.round(rows * (1 - INVALID_ROW_SHARE) * 1.5);
    let lastCheck = 0;
    const run = await spawnCli(cli, ['run', job], dir, env, async () => {
      // The sandbox's counters every second: asking more often slows the run it counts.
      if (performance.now() - lastCheck < 1000) return false;
      lastCheck = performance.now();
      return (await counters()).total >= half;
    });
    if (run.code !== null)
      throw new Error(
        `evsync run ended (exit ${run.code}) before it was killed, ${JSON.stringify((await counters()).calls)}: ${run.stderr}`,
      );
    const killedAtCalls = (await counters()).total;
    const runId = await lastRunId(databaseUrl);
    const resumed = await spawnCli(cli, ['resume', runId], dir, env);
    // Exit 1: the generator's invalid rows failed, as they must. Anything else is no figure.
    if (resumed.code !== 0 && resumed.code !== 1)
      throw new Error(`evsync resume exited ${resumed.code}: ${resumed.stderr}`);
    const after = await counters();
    const duplicates = Object.values(after.duplicates).reduce((sum, keys) => sum + keys.length, 0);
    return {
      label,
      killedAtCalls,
      runSeconds: run.seconds,
      resumeCode: resumed.code,
      resumeSeconds: resumed.seconds,
      resumePeakMb: resumed.peakRssMb,
      resumeCalls: after.total - killedAtCalls,
      totalCalls: after.total,
      duplicates,
    };
  } finally {
    await sandbox?.stop();
    await dropDatabase(database);
    await removeWorkspace(dir);
  }
}

for (const build of builds)
  if (!existsSync(build.cli)) throw new Error(`no CLI at ${build.cli}: npm run build`);
const csv = await usersCsvFile(rows);
const valid = Math.round(rows * (1 - INVALID_ROW_SHARE));
console.log(`resume-scale: ${rows} rows (~${valid} valid), PostgreSQL; ${machineLoad()}`);
const measured: Measured[] = [];
for (const build of builds) {
  const m = await measure(build.label, build.cli, csv);
  measured.push(m);
  console.log(
    `${m.label.padEnd(7)} run killed after ${m.runSeconds.toFixed(1)} s at ${m.killedAtCalls} calls; ` +
      `resume: exit ${m.resumeCode}, ${m.resumeSeconds.toFixed(1)} s, peak RSS ${m.resumePeakMb} MB ` +
      `(${(m.resumePeakMb / TARGET_MB).toFixed(2)}× the ${TARGET_MB} MB target: ${m.resumePeakMb <= TARGET_MB ? 'met' : 'NOT met'}), ` +
      `${m.resumeCalls} calls (${m.totalCalls} in all for ~${valid} valid rows), ${m.duplicates} created twice`,
  );
}
const [first, second] = measured;
if (first && second)
  console.log(
    `${first.label} vs ${second.label}: peak RSS × ${(first.resumePeakMb / second.resumePeakMb).toFixed(2)}, ` +
      `time × ${(first.resumeSeconds / second.resumeSeconds).toFixed(2)}`,
  );
