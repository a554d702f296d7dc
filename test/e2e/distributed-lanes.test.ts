import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitsForWorker } from '../../src/model/run-record.js';
import { laneId, laneQueueName } from '../../src/distributed/lanes.js';
import { IntentQueue } from '../../src/distributed/intent-queue.js';
import type { IntentJob } from '../../src/distributed/intent-job.js';
import { conferenceUrl } from '../../src/config/conference.js';
import { startDistributedEnv, type CliProcess, type DistributedEnv } from '../helpers/distributed-env.js';
import { startWebhookReceiver } from '../helpers/notice-receivers.js';
import {
  conferenceVars,
  platformBlock,
  startSandboxProcess,
  type SandboxProcess,
} from '../helpers/sandbox-process.js';
import { serviceAvailable } from '../helpers/services.js';
import { people, usersCsv } from '../helpers/users-csv.js';
import { waitFor } from '../helpers/wait-for.js';

// Issue #43: each conference key has a lane of its own (docs/distributed.md, "Several
// conferences"), with its own limits, taken only by workers holding its credentials; a lane no worker serves is
// said at once; jobs on the shared queue of releases before lanes still finish. The built CLI.
const ready = (await serviceAvailable('redis')) && (await serviceAvailable('postgres'));

function job(name: string, prefix: string, perSecond: number, extra = ''): string {
  return (
    `name: ${name}\nrate: { per_second: ${perSecond}, concurrency: 6 }\n` +
    platformBlock(prefix) +
    `steps:\n  - { mapping: users, source: { csv: ./${name}.csv } }\n${extra}`
  );
}

function runIdOf(output: string): string {
  const match = /Run (\d{8}-\d{6}-[0-9a-f]+)/.exec(output);
  if (!match?.[1]) throw new Error(`no run id in:\n${output}`);
  return match[1];
}

const laneOf = (sandbox: SandboxProcess): string =>
  laneQueueName(laneId({ baseUrl: conferenceUrl(sandbox.url), keyId: Number(sandbox.keyId) }));

/** A worker's environment holding one conference's key only: not the default `EVSYNC_*` one too. */
const onlyKeyOf = (prefix: string, sandbox: SandboxProcess): NodeJS.ProcessEnv => ({
  ...conferenceVars(prefix, sandbox),
  EVSYNC_BASE_URL: undefined,
  EVSYNC_KEY_ID: undefined,
  EVSYNC_SIGNING_KEY: undefined,
});

async function stop(workers: CliProcess[]): Promise<void> {
  await Promise.all(
    workers.map(async (worker) => {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }),
  );
}

describe.runIf(ready)('distributed mode: one lane per conference key', () => {
  let env: DistributedEnv;
  let b: SandboxProcess;
  let both: NodeJS.ProcessEnv;

  beforeAll(async () => {
    env = await startDistributedEnv({ sandboxArgs: ['--rate-limit', '60/s'] });
    b = await startSandboxProcess(['--rate-limit', '40/s']);
    both = { ...conferenceVars('CONF_A', env.sandbox), ...conferenceVars('CONF_B', b) };
  }, 120_000);
  afterAll(async () => {
    await env?.close();
    await b?.stop();
  }, 60_000);

  /** The workers that recorded the run's results, each once. */
  async function workersOf(runId: string): Promise<Array<string | null>> {
    const names = new Set<string | null>();
    for await (const result of (await env.ledger()).eachResult(runId)) names.add(result.worker ?? null);
    return [...names];
  }

  /**
   * A's job run while the only worker holds a wrong signing key; once the platform has
   * refused it, a worker with the right key joins. Returns the run and both workers.
   */
  async function runWithBadWorkerFirst(jobFile: string) {
    await env.sandbox.resetCounters();
    const bad = env.spawnCli(['worker', '--concurrency', '4'], {
      ...onlyKeyOf('CONF_A', env.sandbox),
      CONF_A_SIGNING_KEY: 'not-the-key-of-conference-a-0123456789',
    });
    await waitFor(() => Promise.resolve(bad.output().includes('worker ready')), 30_000);
    const run = env.spawnCli(['run', jobFile], conferenceVars('CONF_A', env.sandbox));
    await waitFor(async () => ((await env.sandbox.counters()).statuses['401'] ?? 0) > 0, 30_000);
    const good = env.spawnCli(['worker', '--concurrency', '4'], onlyKeyOf('CONF_A', env.sandbox));
    return { run, bad, good };
  }

  it('workers take only the lanes they hold keys for, and one run’s rate never slows another’s', async () => {
    env.write({
      'lane-a.csv': usersCsv(people(400, 'la')),
      'lane-b.csv': usersCsv(people(80, 'lb')),
      'lane-a.yaml': job('lane-a', 'CONF_A', 50),
      'lane-b.yaml': job('lane-b', 'CONF_B', 8),
    });
    const onlyA = env.spawnCli(['worker', '--concurrency', '4'], conferenceVars('CONF_A', env.sandbox));
    const onlyB = env.spawnCli(['worker', '--concurrency', '4'], onlyKeyOf('CONF_B', b));
    const workers = [onlyA, onlyB];
    try {
      // A at 50/s (400 users: 8 s) is sending when B starts at 8/s. With one shared queue, the
      // last started run's job rate (B's) held both.
      await env.sandbox.resetCounters();
      const runA = env.spawnCli(['run', 'lane-a.yaml'], conferenceVars('CONF_A', env.sandbox));
      await waitFor(async () => ((await env.sandbox.counters()).calls['POST /user'] ?? 0) >= 20, 60_000);
      const runB = env.spawnCli(['run', 'lane-b.yaml'], conferenceVars('CONF_B', b));
      await waitFor(async () => ((await b.counters()).calls['POST /user'] ?? 0) >= 4, 60_000);
      const status = await env.cli(['status'], both);
      expect(await runA.exited, runA.output()).toBe(0);
      const sent = await env.sandbox.counters();
      const rateA = (sent.calls['POST /user'] ?? 0) / (((sent.lastAt ?? 0) - (sent.firstAt ?? 0)) / 1000);
      // A's own limit, not B's 8/s: at least half of 50/s, three times B's (a CI run under a
      // load of 5 sent A's at 37.9/s).
      expect(rateA).toBeGreaterThan(25);
      expect(status.code, status.output).toBe(0);
      const hostA = new URL(env.sandbox.url).host;
      const hostB = new URL(b.url).host;
      expect(status.output).toMatch(new RegExp(`${hostA} \\(key \\d+, lane [0-9a-f]{16}\\): 50 requests/s`));
      expect(status.output).toMatch(new RegExp(`${hostB} \\(key \\d+, lane [0-9a-f]{16}\\): 8 requests/s`));
      expect(status.output).toMatch(/8 jobs\/s; \d+ waiting, \d+ active, \d+ delayed; workers .+:\d+/);
      expect(await runB.exited, runB.output()).toBe(0);
      for (const key of [env.sandbox.signingKey, b.signingKey]) expect(status.output).not.toContain(key);
      // Nobody took a job it could not sign: no refusal, no job put back.
      for (const worker of workers) expect(worker.output()).not.toContain('refusing intents of');
      expect(await workersOf(runIdOf(runA.output()))).toEqual([
        expect.stringMatching(`:${onlyA.child.pid}$`),
      ]);
      expect(await workersOf(runIdOf(runB.output()))).toEqual([
        expect.stringMatching(`:${onlyB.child.pid}$`),
      ]);
      for (const sandbox of [env.sandbox, b]) expect((await sandbox.counters()).duplicates).toEqual({});
      expect((await env.sandbox.counters()).calls['POST /user']).toBe(400);
      expect((await b.counters()).calls['POST /user']).toBe(80);
    } finally {
      await stop(workers);
    }
  }, 180_000);

  it('a lane no worker can serve is said at once; the run is cut off with a run_failed notice', async () => {
    const hook = await startWebhookReceiver('lane-secret');
    env.write({
      'lonely.csv': usersCsv(people(120, 'lo')),
      'lonely.yaml': job(
        'lonely',
        'CONF_B',
        20,
        'notify:\n  channels:\n    - webhook: { url_env: OPS_HOOK_URL, secret_env: OPS_HOOK_SECRET }\n',
      ),
    });
    // Workers for conference A only: B's lane has none.
    const workers = [env.spawnCli(['worker'], conferenceVars('CONF_A', env.sandbox))];
    try {
      await waitFor(() => Promise.resolve(workers[0]!.output().includes('worker ready')), 30_000);
      const before = (await b.counters()).total;
      const run = env.spawnCli(['run', 'lonely.yaml'], {
        ...conferenceVars('CONF_B', b),
        OPS_HOOK_URL: hook.url,
        OPS_HOOK_SECRET: 'lane-secret',
      });
      const started = Date.now();
      // Said at once: within seconds, not after 50 offers of each job.
      await waitFor(() => Promise.resolve(run.output().includes('no worker serves the lane of')), 15_000);
      expect((Date.now() - started) / 1000).toBeLessThan(15);
      const status = await env.cli(['status'], both);
      expect(status.output).toMatch(new RegExp(`${new URL(b.url).host} \\(key .*no worker serves it`));
      // The phase's whole total, not its first chunk's (the build before said 0 of 100).
      expect(status.output).toMatch(/phase users: 0 of 120/);
      const code = await run.exited;
      expect(code, run.output()).toBe(3);
      expect(run.output()).toContain('CONF_B_URL, CONF_B_KEY_ID, CONF_B_SIGNING_KEY');
      expect(run.output()).toContain(`evsync resume ${runIdOf(run.output())}`);
      // The summary says what to do next once (log lines aside).
      const summary = run
        .output()
        .split('\n')
        .filter((line) => !line.startsWith('{'))
        .join('\n');
      expect(summary.split(`evsync resume ${runIdOf(run.output())}`), summary).toHaveLength(2);
      expect((Date.now() - started) / 1000).toBeLessThan(40);
      expect((await b.counters()).total).toBe(before);
      await waitFor(() => Promise.resolve(hook.received.length > 0), 20_000);
      expect(hook.received[0]!.text).toMatch(/ended aborted: no worker serves the lane of/);
      // `doctor` with the job says so too, before its next run (the build before: workers ok).
      const vars = { ...conferenceVars('CONF_B', b), OPS_HOOK_URL: hook.url, OPS_HOOK_SECRET: 'lane-secret' };
      const doctor = await env.cli(['doctor', 'lonely.yaml'], vars);
      expect(doctor.output).toMatch(
        /none of the 1 worker\(s\) connected takes the lane of .+: none holds its key/,
      );
      expect(doctor.output).toContain('sets CONF_B_URL, CONF_B_KEY_ID, CONF_B_SIGNING_KEY');
      expect(doctor.code).toBe(2);
      // So does `schedule`, which registered the nightly run all the same.
      env.write({
        'lonely-nightly.yaml': job(
          'lonely-nightly',
          'CONF_B',
          20,
          'schedule: { cron: "0 2 * * *", tz: UTC }\n',
        ),
      });
      const scheduled = await env.cli(['schedule', 'lonely-nightly.yaml'], vars);
      expect(scheduled.output).toMatch(
        /But none of the 1 worker\(s\) connected takes the lane of .+: its runs will be cut off/,
      );
      expect((await env.cli(['schedule', '--remove', 'lonely-nightly'], vars)).code).toBe(0);
      // A worker with B's key comes: the resume sends the rest, once.
      workers.push(env.spawnCli(['worker'], conferenceVars('CONF_B', b)));
      const resumed = await env.cli(['resume', runIdOf(run.output())], conferenceVars('CONF_B', b));
      expect(resumed.code, resumed.output).toBe(0);
      expect((await b.counters()).duplicates).toEqual({});
      expect((await env.cli(['doctor', 'lonely.yaml'], vars)).output).toMatch(
        /1 of the 2 worker\(s\) take the lane of/,
      );
    } finally {
      await stop(workers);
      await hook.close();
    }
  }, 180_000);

  it('a worker holding a key under other names than the job’s serves its lane and signs its jobs', async () => {
    env.write({ 'renamed.csv': usersCsv(people(30, 'rn')), 'renamed.yaml': job('renamed', 'CONF_B', 20) });
    // B's key as EVSYNC_*, the job's CONF_B_* unset: the same base URL and key id.
    const worker = env.spawnCli(['worker', '--concurrency', '4'], {
      EVSYNC_BASE_URL: b.url,
      EVSYNC_KEY_ID: b.keyId,
      EVSYNC_SIGNING_KEY: b.signingKey,
    });
    try {
      await waitFor(() => Promise.resolve(worker.output().includes('worker ready')), 30_000);
      const before = (await b.counters()).calls['POST /user'] ?? 0;
      // The build before left the lane unserved (exit 3), or refused each job one by one.
      const run = await env.cli(['run', 'renamed.yaml'], conferenceVars('CONF_B', b));
      expect(run.code, run.output).toBe(0);
      expect(run.output).not.toContain('no worker serves the lane of');
      expect(worker.output()).toContain(`serving the lane of ${new URL(b.url).host}`);
      expect(worker.output()).not.toContain('refusing intents of');
      expect(((await b.counters()).calls['POST /user'] ?? 0) - before).toBe(30);
      expect((await b.counters()).duplicates).toEqual({});
    } finally {
      await stop([worker]);
    }
  }, 180_000);

  it('the only worker of a lane killed: the run stops 10 s after, not waiting for the jobs it held', async () => {
    env.write({ 'orphan.csv': usersCsv(people(100, 'or')), 'orphan.yaml': job('orphan', 'CONF_B', 20) });
    // A's worker keeps a worker connected, so the run does not just wait for one to start.
    const workers = [
      env.spawnCli(['worker', '--concurrency', '4'], onlyKeyOf('CONF_A', env.sandbox)),
      env.spawnCli(['worker', '--concurrency', '4'], onlyKeyOf('CONF_B', b)),
    ];
    try {
      const before = (await b.counters()).calls['POST /user'] ?? 0;
      const run = env.spawnCli(['run', 'orphan.yaml'], conferenceVars('CONF_B', b));
      await waitFor(async () => ((await b.counters()).calls['POST /user'] ?? 0) - before >= 20, 60_000);
      workers[1]!.child.kill('SIGKILL');
      await workers[1]!.exited;
      const killed = Date.now();
      expect(await run.exited, run.output()).toBe(3);
      // 10 s of grace after it is said; the build before then waited 30 s for the dead worker's jobs.
      expect((Date.now() - killed) / 1000).toBeLessThan(25);
      expect(run.output()).toContain('no worker serves the lane of');
      workers.push(env.spawnCli(['worker', '--concurrency', '4'], onlyKeyOf('CONF_B', b)));
      const resumed = await env.cli(['resume', runIdOf(run.output())], conferenceVars('CONF_B', b));
      expect(resumed.code, resumed.output).toBe(0);
      expect((await b.counters()).duplicates).toEqual({});
    } finally {
      await stop([workers[0]!, ...workers.slice(2)]);
    }
  }, 180_000);

  it('a worker whose signature the platform refuses hands its jobs to one that holds the right key', async () => {
    env.write({ 'badkey.csv': usersCsv(people(60, 'bk')), 'badkey.yaml': job('badkey', 'CONF_A', 50) });
    // The worker with a wrong key comes first and takes the first jobs; the right one after.
    const { run, bad, good } = await runWithBadWorkerFirst('badkey.yaml');
    const workers = [bad, good];
    try {
      // The build before failed the rows the bad worker took (exit 1), and said nothing of it.
      expect(await run.exited, run.output()).toBe(0);
      const runId = runIdOf(run.output());
      const ledger = await env.ledger();
      expect((await ledger.resultCounts(runId)).user).toEqual({ created: 60 });
      expect(await workersOf(runId)).toEqual([expect.stringMatching(`:${good.child.pid}$`)]);
      expect((await env.sandbox.counters()).duplicates).toEqual({});
      // The bad worker said why, naming its variable; status too, beside it.
      expect(bad.output()).toMatch(
        /the platform refused the signature of this worker .+ fix CONF_A_SIGNING_KEY/,
      );
      const status = await env.cli(['status'], both);
      expect(status.output).toMatch(
        new RegExp(
          `:${bad.child.pid} \\(.*signature refused by ${new URL(env.sandbox.url).host}: .+CONF_A_SIGNING_KEY`,
        ),
      );
      expect(status.output).not.toContain('not-the-key-of-conference-a');
    } finally {
      await stop(workers);
    }
  }, 180_000);

  it('a check-in refused for a wrong key goes back to the queue and is posted once, by the right worker', async () => {
    // The key owner's own check-ins (no user_client_id): nothing to wait for, so the bad worker takes the first.
    const rows = Array.from({ length: 40 }, (_, i) => `bc-${i + 1},,,,"13.${1000 + i},52.5",Stand ${i + 1}`);
    env.write({
      'badkey-ci.csv': `check_in_id,user_client_id,location_type,location_id,center,display_value\n${rows.join('\n')}\n`,
      'badkey-ci.yaml':
        'name: badkey-ci\nrate: { per_second: 50, concurrency: 6 }\n' +
        platformBlock('CONF_A') +
        'steps:\n  - { mapping: check_ins, source: { csv: ./badkey-ci.csv } }\n',
    });
    const { run, bad, good } = await runWithBadWorkerFirst('badkey-ci.yaml');
    const workers = [bad, good];
    try {
      // The build before kept a refused check-in's send mark, and recorded it failed (exit 1).
      expect(await run.exited, run.output()).toBe(0);
      const runId = runIdOf(run.output());
      const ledger = await env.ledger();
      expect((await ledger.resultCounts(runId)).check_in).toEqual({ created: 40 });
      expect(await workersOf(runId)).toEqual([expect.stringMatching(`:${good.child.pid}$`)]);
      const counters = await env.sandbox.counters();
      expect((counters.calls['POST /check_in'] ?? 0) - (counters.statuses['401'] ?? 0)).toBe(40);
      const state = (await (await fetch(`${env.sandbox.url}/_sandbox/state`)).json()) as {
        checkIns: Array<{ displayValue: string | null }>;
      };
      const stands = state.checkIns.filter((checkIn) => checkIn.displayValue?.startsWith('Stand '));
      expect(new Set(stands.map((checkIn) => checkIn.displayValue)).size).toBe(40);
      expect(stands).toHaveLength(40);
    } finally {
      await stop(workers);
    }
  }, 180_000);

  it('credentials added to a running worker’s .env are picked up without a restart', async () => {
    env.write({ 'late.csv': usersCsv(people(40, 'late')), 'late.yaml': job('late', 'CONF_B', 20) });
    // Started with A's key only; its folder's .env (the job folder) does not exist yet.
    const worker = env.spawnCli(['worker', '--concurrency', '4'], conferenceVars('CONF_A', env.sandbox));
    const dotenv = join(env.dir, '.env');
    try {
      await waitFor(() => Promise.resolve(worker.output().includes('worker ready')), 30_000);
      const vars = conferenceVars('CONF_B', b);
      writeFileSync(
        dotenv,
        Object.entries(vars)
          .map(([name, value]) => `${name}=${value}\n`)
          .join(''),
      );
      const before = (await b.counters()).calls['POST /user'] ?? 0;
      const run = await env.cli(['run', 'late.yaml'], vars);
      expect(run.code, run.output).toBe(0);
      expect(run.output).not.toContain('no worker serves the lane of');
      expect(worker.output()).toContain(`serving the lane of ${new URL(b.url).host}`);
      expect(await workersOf(runIdOf(run.output))).toEqual([expect.stringMatching(`:${worker.child.pid}$`)]);
      expect(((await b.counters()).calls['POST /user'] ?? 0) - before).toBe(40);

      // The key taken out again: the worker leaves the lane, and status stops saying it serves it.
      const serving = new RegExp(`:${worker.child.pid} \\(serves [^)]*${new URL(b.url).host}`);
      expect((await env.cli(['status'], vars)).output).toMatch(serving);
      rmSync(dotenv, { force: true });
      await waitFor(() => Promise.resolve(worker.output().includes('leaving a lane')), 15_000);
      const status = await env.cli(['status'], vars);
      expect(status.output).not.toMatch(serving);
      expect(status.output).toMatch(new RegExp(`${new URL(b.url).host} \\(key .*no worker serves it`));
      // It says the worker left that lane, not that it never took a run.
      expect(status.output).toMatch(
        new RegExp(`:${worker.child.pid} \\(left ${new URL(b.url).host}: the key is no longer`),
      );
    } finally {
      rmSync(dotenv, { force: true });
      await stop([worker]);
    }
  }, 180_000);

  it('a run --same-conference under another URL of a known conference is refused at once', async () => {
    env.write({ 'alias.csv': usersCsv(people(20, 'al')), 'alias.yaml': job('alias', 'CONF_A', 50) });
    const worker = env.spawnCli(['worker', '--concurrency', '4'], onlyKeyOf('CONF_A', env.sandbox));
    try {
      const first = await env.cli(['run', 'alias.yaml'], conferenceVars('CONF_A', env.sandbox));
      expect(first.code, first.output).toBe(0);
    } finally {
      await stop([worker]);
    }
    // The same sandbox by another name: the run was recorded under the known conference, its
    // lane opened under this URL, and the workers refused every job for 15 minutes.
    const other = env.sandbox.url.replace('127.0.0.1', 'localhost');
    const started = Date.now();
    const aliased = await env.cli(['run', 'alias.yaml', '--same-conference'], {
      ...conferenceVars('CONF_A', env.sandbox),
      CONF_A_URL: other,
    });
    expect(aliased.code, aliased.output).toBe(2);
    expect(aliased.output).toContain('--same-conference does not work in distributed mode');
    expect(aliased.output).toContain('nothing was sent. Point CONF_A_URL at http://127.0.0.1:');
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 120_000);

  it('jobs left on the shared queue of the release before lanes finish, and the run resumes', async () => {
    env.write({ 'old.csv': usersCsv(people(120, 'old')), 'old.yaml': job('old', 'CONF_A', 60) });
    await env.sandbox.resetCounters();
    // No worker yet: the run enqueues onto its lane and is killed; its jobs are then put on
    // the shared queue, where the release before lanes enqueued them.
    const run = env.spawnCli(['run', 'old.yaml'], conferenceVars('CONF_A', env.sandbox));
    const lane = new Queue(laneOf(env.sandbox), { connection: env.redis.duplicate(), prefix: env.prefix });
    const shared = new IntentQueue(env.redis, env.prefix);
    try {
      await waitFor(async () => (await lane.getWaitingCount()) === 120, 60_000);
      run.child.kill('SIGKILL');
      await run.exited;
      const ledger = await env.ledger();
      const runId = (await ledger.listRuns(1))[0]!.id;
      const jobs = (await lane.getWaiting(0, -1)).map((waiting) => waiting.data as IntentJob);
      await lane.obliterate({ force: true });
      await shared.enqueue(jobs);
      const status = await env.cli(['status'], both);
      expect(status.output).toContain('shared queue of runs started before lanes: 120 waiting');
      const conferenceA = conferenceVars('CONF_A', env.sandbox);
      const workers = [env.spawnCli(['worker'], conferenceA), env.spawnCli(['worker'], conferenceA)];
      try {
        // Workers drain the shared queue while the run's command is gone.
        await waitFor(async () => (await shared.outstanding()) === 0, 60_000);
        expect((await env.sandbox.counters()).calls['POST /user']).toBe(120);
        const resumed = await env.cli(['resume', runId], conferenceA);
        expect(resumed.code, resumed.output).toBe(0);
        expect((await ledger.resultCounts(runId)).user).toEqual({ created: 120 });
        const counters = await env.sandbox.counters();
        expect(counters.duplicates).toEqual({});
        expect(counters.calls['POST /user']).toBe(120);
      } finally {
        await stop(workers);
      }
    } finally {
      await lane.close();
      await shared.close();
    }
  }, 180_000);
  it('a detached run taken first by a worker without its conference’s key waits for one that has it', async () => {
    // A queue of its own: only the workers started here take its runs.
    const own = { EVSYNC_QUEUE_PREFIX: `${env.prefix}-handback` };
    env.write({ 'handback.csv': usersCsv(people(40, 'hb')), 'handback.yaml': job('handback', 'CONF_B', 40) });
    const onlyA = env.spawnCli(['worker', '--concurrency', '4'], {
      ...conferenceVars('CONF_A', env.sandbox),
      ...own,
    });
    const workers = [onlyA];
    try {
      await waitFor(() => Promise.resolve(/worker ready/.test(onlyA.output())), 60_000);
      const detached = await env.cli(['run', 'handback.yaml', '--detach'], {
        ...conferenceVars('CONF_B', b),
        ...own,
      });
      expect(detached.code, detached.output).toBe(0);
      const runId = /^(\d{8}-\d{6}-[0-9a-f]+)$/m.exec(detached.output)![1]!;
      // The worker without B's key is offered the run, and hands it back: it neither sends
      // nor ends it (the build before failed it with B's variables missing).
      await waitFor(() => Promise.resolve(/handing back a detached run/.test(onlyA.output())), 30_000);
      const ledger = await env.ledger();
      const waiting = await ledger.getRun(runId);
      expect(waiting && waitsForWorker(waiting), JSON.stringify(waiting)).toBe(true);
      expect((await env.cli(['runs', '--limit', '1'], own)).output).toMatch(/waiting for a worker/);
      workers.push(
        env.spawnCli(['worker', '--concurrency', '4'], { ...conferenceVars('CONF_B', b), ...own }),
      );
      await waitFor(async () => (await ledger.getRun(runId))?.status === 'completed', 60_000);
      expect((await ledger.resultCounts(runId)).user).toEqual({ created: 40 });
    } finally {
      await stop(workers);
    }
  }, 180_000);

  it('with two lanes, kill -9 of a worker and Redis emptied mid-run: nothing twice, nothing missing', async () => {
    env.write({
      'kill-a.csv': usersCsv(people(300, 'ka')),
      'kill-b.csv': usersCsv(people(200, 'kb')),
      'kill-a.yaml': job('kill-a', 'CONF_A', 50),
      'kill-b.yaml': job('kill-b', 'CONF_B', 30),
    });
    await Promise.all([env.sandbox.resetCounters(), b.resetCounters()]);
    const workers = [1, 2, 3].map(() => env.spawnCli(['worker', '--concurrency', '4'], both));
    try {
      const runs = [
        env.spawnCli(['run', 'kill-a.yaml'], conferenceVars('CONF_A', env.sandbox)),
        env.spawnCli(['run', 'kill-b.yaml'], conferenceVars('CONF_B', b)),
      ];
      const created = async (sandbox: SandboxProcess): Promise<number> =>
        (await sandbox.counters()).calls['POST /user'] ?? 0;
      await waitFor(async () => (await created(env.sandbox)) >= 60 && (await created(b)) >= 40, 60_000);
      workers[0]!.child.kill('SIGKILL');
      await waitFor(async () => (await created(env.sandbox)) >= 120, 60_000);
      expect(await env.loseRedis()).toBeGreaterThan(0);
      const codes = await Promise.all(runs.map((run) => run.exited));
      expect(codes, runs.map((run) => run.output()).join('\n')).toEqual([0, 0]);
      const ledger = await env.ledger();
      for (const [run, count] of [
        [runs[0]!, 300],
        [runs[1]!, 200],
      ] as const) {
        const runId = runIdOf(run.output());
        expect(await ledger.pendingIntents(runId)).toEqual([]);
        // A create the killed worker sent but did not record is found by its next delivery
        // (processors look up before creating): `updated` or `attached`, never twice, as in
        // distributed-mode.test.ts. (Expecting all `created` failed whenever the kill caught
        // a create in flight: 298 created and 2 updated, the sandbox with no duplicate.)
        const users = (await ledger.resultCounts(runId)).user ?? {};
        expect(users.failed).toBeUndefined();
        expect((users.created ?? 0) + (users.updated ?? 0) + (users.attached ?? 0)).toBe(count);
      }
      for (const sandbox of [env.sandbox, b]) expect((await sandbox.counters()).duplicates).toEqual({});
    } finally {
      await stop(workers.slice(1));
    }
  }, 240_000);
});
