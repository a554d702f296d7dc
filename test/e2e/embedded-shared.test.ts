import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedPaths } from '../../src/ledger/embedded-paths.js';
import { postmasterPid } from '../../src/ledger/embedded-server.js';
import { openLedger } from '../../src/ledger/open-ledger.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import {
  cliWorkspace,
  spawnBuiltCli,
  startBuiltDashboard,
  type BuiltDashboard,
  type CliWorkspace,
  type SpawnedResult,
} from '../helpers/built-cli.js';
import { jobYaml, people, usersCsv } from './sync-harness.js';

// The embedded ledger serves every process at once (docs/ledger.md, "Where it lives"): with
// the dashboard open, a run of 20,000 users, `runs`, `status`, `report` and a retry from the
// dashboard all go ahead; kill -9 of each process that takes part, the server too, loses
// nothing that a resume does not finish, and sends nothing twice.
const TOKEN = 'embedded-shared-token-0123456789';
const BIG = 20_000;
/** Users of the run killed piece by piece. */
const KILL = 8_000;

interface Started {
  pid: number;
  done: Promise<SpawnedResult>;
}

function start(ws: CliWorkspace, sandbox: RunningSandbox, args: readonly string[]): Started {
  const child = spawnBuiltCli(args, {
    cwd: ws.dir,
    env: { ...ws.envFor(sandbox), EVSYNC_DASHBOARD_TOKEN: TOKEN },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Resolved on `exit`, once the child is reaped: until then a killed one still looks alive.
  const done = new Promise<SpawnedResult>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { pid: child.pid!, done };
}

async function until(
  condition: () => boolean,
  what: string,
  running?: Started,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let ended: SpawnedResult | undefined;
  void running?.done.then((result) => (ended = result));
  while (!condition()) {
    if (ended !== undefined) throw new Error(`${what}: it ended (${ended.code}): ${ended.stderr}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function userPosts(sandbox: RunningSandbox): number {
  return sandbox.counters.callsTo('POST', '/user');
}

describe('the embedded ledger, shared by the dashboard, a run, reads and a retry', () => {
  let ws: CliWorkspace;
  let sandbox: RunningSandbox;
  let dashboard: BuiltDashboard | undefined;

  beforeAll(async () => {
    ws = cliWorkspace('evsync-shared-');
    sandbox = await ws.sandbox();
    const rate = 'rate: { per_second: 3000, concurrency: 8 }\n';
    ws.write({
      'few.csv': usersCsv(people(6, 'f')),
      'few.yaml': jobYaml('few', '  - { mapping: users, source: { csv: ./few.csv } }\n'),
      'big.csv': usersCsv(people(BIG, 'b')),
      'big.yaml': `name: big\n${rate}steps:\n  - { mapping: users, source: { csv: ./big.csv } }\n`,
      'kill.csv': usersCsv(people(KILL, 'k')),
      'kill.yaml': `name: kill\n${rate}steps:\n  - { mapping: users, source: { csv: ./kill.csv } }\n`,
    });
  }, 60_000);
  afterAll(async () => {
    await dashboard?.stop();
    await ws?.close();
  });

  it('serves them all at once; each waits only for its own work', async () => {
    // A run with failed rows, for the dashboard to retry.
    sandbox.faults.set({ error500: { next: 1_000 } });
    const few = await ws.run(sandbox, ['run', 'few.yaml', '--json']);
    sandbox.faults.set({});
    const fewRun = (JSON.parse(few.stdout) as { runId: string }).runId;

    dashboard = await startBuiltDashboard({
      cwd: ws.dir,
      env: { ...ws.envFor(sandbox), EVSYNC_DASHBOARD_TOKEN: TOKEN },
    });
    const big = start(ws, sandbox, ['run', 'big.yaml']);
    await until(() => userPosts(sandbox) >= 500, 'the big run to send', big);

    const [runs, status, report] = await Promise.all([
      ws.run(sandbox, ['runs']),
      ws.run(sandbox, ['status']),
      ws.run(sandbox, ['report', fewRun]),
    ]);
    for (const read of [runs, status, report]) expect(read.code, read.stderr).toBe(0);
    expect(runs.stdout).toMatch(/big .*running/);
    const retry = await fetch(`${dashboard.base}/runs/${fewRun}/retry`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        accept: 'application/json',
        'content-type': 'application/json',
      },
      body: '{}',
    });
    expect(retry.status).toBe(200);
    const retryRun = ((await retry.json()) as { runId: string }).runId;

    const done = await big.done;
    expect(done.code, done.stderr).toBe(0);
    const ledger = await openLedger({ dataDir: join(ws.dir, 'data'), databaseUrl: '' });
    try {
      for (let i = 0; i < 200 && (await ledger.getRun(retryRun))?.status === 'running'; i += 1)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await ledger.getRun(retryRun))?.status).toBe('completed');
    } finally {
      await ledger.close();
    }
    expect(sandbox.counters.duplicates()).toEqual({});
    expect(sandbox.state.conferenceUsers()).toHaveLength(BIG + 6);
  }, 300_000);

  it('kill -9 of the keeper, the server, the dashboard and the run in turn: a resume finishes, nothing twice', async () => {
    const paths = embeddedPaths(join(ws.dir, 'data'));
    const run = start(ws, sandbox, ['run', 'kill.yaml']);
    const killed = (pid: number | undefined): void => {
      if (pid !== undefined) process.kill(pid, 'SIGKILL');
    };
    await until(() => userPosts(sandbox) >= BIG + 6 + 1_000, 'the run to send', run);
    killed(Number.parseInt(readFileSync(paths.keeperLock, 'utf8'), 10));
    await until(() => userPosts(sandbox) >= BIG + 6 + 2_000, 'the run to go on without the keeper', run);
    killed(postmasterPid(paths));
    await until(
      () => userPosts(sandbox) >= BIG + 6 + 3_500,
      'the run to go on after the server was killed',
      run,
    );
    killed(dashboard?.child.pid);
    await until(() => userPosts(sandbox) >= BIG + 6 + 5_000, 'the run to go on without the dashboard', run);
    killed(run.pid);
    await run.done;

    const runs = JSON.parse((await ws.run(sandbox, ['runs', '--json'])).stdout) as Array<{
      id: string;
      jobName: string;
    }>;
    const cut = runs.find((r) => r.jobName === 'kill')!;
    // A run killed while its sources were still being read finishes what it had planned
    // (exit 3, saying so); the job's next run sends the rest.
    const resumed = await ws.run(sandbox, ['resume', cut.id]);
    expect([0, 3], resumed.stderr).toContain(resumed.code);
    const again = await ws.run(sandbox, ['run', 'kill.yaml']);
    expect(again.code, again.stderr).toBe(0);

    expect(sandbox.counters.duplicates()).toEqual({});
    expect(sandbox.state.conferenceUsers().filter((u) => u.email.startsWith('k'))).toHaveLength(KILL);
    const ledger = await openLedger({ dataDir: join(ws.dir, 'data'), databaseUrl: '' });
    try {
      // Every planned row of the killed run has its result.
      expect(await ledger.pendingIntents(cut.id)).toEqual([]);
    } finally {
      await ledger.close();
    }
  }, 300_000);
});
