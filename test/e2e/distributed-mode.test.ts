import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/sandbox-process.js';
import { waitFor } from '../helpers/wait-for.js';
import { serviceAvailable } from '../helpers/services.js';
import { startDistributedEnv, type CliProcess, type DistributedEnv } from '../helpers/distributed-env.js';
import { openLedger } from '../../src/ledger/open-ledger.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { conferenceHost } from '../../src/model/conference.js';
import { PLATFORM_DOWN_CODES } from '../../src/sync/execute/platform-down.js';

const ready = (await serviceAvailable('redis')) && (await serviceAvailable('postgres'));

/** `kind key action code` of every result of a run, sorted: what a run did, ids aside. */
async function outcomes(ledger: Ledger, runId: string): Promise<string[]> {
  const rows: string[] = [];
  for await (const result of ledger.eachResult(runId))
    rows.push(`${result.kind} ${result.key} ${result.action} ${result.errorCode ?? ''}`);
  return rows.sort();
}

function runIdOf(output: string): string {
  const match = /Run (\d{8}-\d{6}-[0-9a-f]+)/.exec(output);
  if (!match?.[1]) throw new Error(`no run id in:\n${output}`);
  return match[1];
}

describe.runIf(ready)('distributed mode: evsync run with evsync worker processes', () => {
  let env: DistributedEnv;
  let workers: CliProcess[] = [];

  beforeAll(async () => {
    env = await startDistributedEnv();
    cpSync(join(ROOT, 'jobs/demo-data'), join(env.dir, 'demo-data'), { recursive: true });
    cpSync(join(ROOT, 'jobs/demo-mappings'), join(env.dir, 'demo-mappings'), { recursive: true });
    cpSync(join(ROOT, 'jobs/demo.yaml'), join(env.dir, 'demo.yaml'));
    workers = [env.startWorker(4), env.startWorker(4), env.startWorker(4)];
  }, 120_000);
  afterAll(async () => env?.close(), 60_000);

  it('3 worker processes finish every intent, with the results of an inline run', async () => {
    const distributed = await env.cli(['run', 'demo.yaml']);
    expect(distributed.output).toContain('distributed mode');
    // The demo's data has bad rows on purpose: exit code 1, as inline.
    expect(distributed.code).toBe(1);
    const runId = runIdOf(distributed.output);
    const ledger = await env.ledger();
    expect(await ledger.pendingIntents(runId)).toEqual([]);
    const report = await env.cli(['report', runId, '--format', 'json']);
    const rows = JSON.parse(report.output) as Array<{ worker?: string; attempts: number }>;
    const byWorker = new Set(rows.filter((row) => row.attempts > 0).map((row) => row.worker));
    expect(byWorker.size).toBeGreaterThanOrEqual(2);
    expect([...byWorker].every((worker) => /^.+:\d+$/.test(worker ?? ''))).toBe(true);
    expect((await env.sandbox.counters()).duplicates).toEqual({});

    // The same job in one process, on an emptied platform and a ledger of its own.
    await fetch(`${env.sandbox.url}/_sandbox/reset`, { method: 'POST' });
    const inlineUrl = await env.otherDatabase('inline');
    const inline = await env.cli(['run', 'demo.yaml'], { REDIS_URL: '', DATABASE_URL: inlineUrl });
    expect(inline.output).not.toContain('distributed mode');
    expect(inline.code).toBe(distributed.code);
    const inlineLedger = await openLedger({ databaseUrl: inlineUrl });
    try {
      expect(await outcomes(ledger, runId)).toEqual(await outcomes(inlineLedger, runIdOf(inline.output)));
    } finally {
      await inlineLedger.close();
    }
  });

  it('a worker killed with SIGKILL mid-run: another takes its jobs, nothing is created twice', async () => {
    await fetch(`${env.sandbox.url}/_sandbox/reset`, { method: 'POST' });
    const run = env.spawnCli(['run', env.usersJob('kill', 400, 200, 8)]);
    await waitFor(async () => ((await env.sandbox.counters()).total ?? 0) > 60);
    const victim = workers[0]!;
    victim.child.kill('SIGKILL');
    await victim.exited;
    expect(await run.exited).toBe(0);
    const counters = await env.sandbox.counters();
    expect(counters.duplicates).toEqual({});
    const ledger = await env.ledger();
    const runId = runIdOf(run.output());
    expect(await ledger.pendingIntents(runId)).toEqual([]);
    // A create the killed worker sent but did not record is found again by its next
    // delivery (processors look up before creating): `updated` or `attached`, never twice.
    const users = (await ledger.resultCounts(runId)).user ?? {};
    expect(users.failed).toBeUndefined();
    expect((users.created ?? 0) + (users.updated ?? 0) + (users.attached ?? 0)).toBe(400);
    workers[0] = env.startWorker(4);
  }, 90_000);

  /** Sets the sandbox's faults (`docs/sandbox.md`), or clears them without a spec. */
  function sandboxFaults(spec?: string): Promise<Response> {
    return fetch(`${env.sandbox.url}/_sandbox/faults`, {
      method: spec === undefined ? 'DELETE' : 'PUT',
      headers: { 'content-type': 'application/json' },
      ...(spec === undefined ? {} : { body: JSON.stringify({ spec }) }),
    });
  }

  async function sandboxRateLimit(limit: { perSecond: number; burst: number } | null): Promise<void> {
    await fetch(`${env.sandbox.url}/_sandbox/rate-limit`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(limit),
    });
  }

  it('3 workers hold one global rate limit: 30/s against a 30/s platform, no 429', async () => {
    await fetch(`${env.sandbox.url}/_sandbox/reset`, { method: 'POST' });
    await sandboxRateLimit({ perSecond: 30, burst: 5 });
    try {
      const started = performance.now();
      const run = await env.cli(['run', env.usersJob('limit', 150, 30, 6)]);
      const seconds = (performance.now() - started) / 1000;
      expect(run.code).toBe(0);
      const counters = await env.sandbox.counters();
      expect(counters.statuses['429']).toBeUndefined();
      expect(counters.calls['POST /user']).toBe(150);
      // 150 calls at 30/s take at least 145/30 s once the first 5 went together.
      expect(seconds).toBeGreaterThan(145 / 30);
    } finally {
      await sandboxRateLimit(null);
    }
  }, 90_000);

  it('a 429 storm pauses the queue and recovers: no intent fails for it', async () => {
    await fetch(`${env.sandbox.url}/_sandbox/reset`, { method: 'POST' });
    await sandboxRateLimit({ perSecond: 20, burst: 5 });
    try {
      const run = await env.cli(['run', env.usersJob('storm', 120, 200, 12)]);
      expect(run.code).toBe(0);
      const counters = await env.sandbox.counters();
      expect(counters.statuses['429']).toBeGreaterThan(0);
      expect(counters.duplicates).toEqual({});
      const ledger = await env.ledger();
      const [latest] = await ledger.listRuns(1);
      expect((await ledger.resultCounts(latest!.id)).user).toEqual({ created: 120 });
    } finally {
      await sandboxRateLimit(null);
    }
  }, 90_000);

  it('Redis loses everything mid-run: evsync resume finishes the run, nothing twice', async () => {
    await fetch(`${env.sandbox.url}/_sandbox/reset`, { method: 'POST' });
    const run = env.spawnCli(['run', env.usersJob('lost', 500, 100, 8)]);
    await waitFor(async () => ((await env.sandbox.counters()).total ?? 0) > 80);
    run.child.kill('SIGKILL');
    await run.exited;
    expect(await env.loseRedis()).toBeGreaterThan(0);
    const ledger = await env.ledger();
    const [cut] = await ledger.listRuns(1);
    expect((await ledger.pendingIntents(cut!.id)).length).toBeGreaterThan(0);
    const resumed = await env.cli(['resume', cut!.id]);
    expect(resumed.code).toBe(0);
    expect(await ledger.pendingIntents(cut!.id)).toEqual([]);
    expect((await ledger.resultCounts(cut!.id)).user).toEqual({ created: 500 });
    expect((await env.sandbox.counters()).duplicates).toEqual({});
  }, 120_000);

  it('resume while the killed pass is still in flight: it waits for it, sends nothing twice, and ends', async () => {
    await fetch(`${env.sandbox.url}/_sandbox/reset`, { method: 'POST' });
    await sandboxFaults('latency=50-150');
    try {
      const run = env.spawnCli(['run', env.usersJob('inflight', 600, 300, 12)]);
      await waitFor(async () => ((await env.sandbox.counters()).total ?? 0) > 100);
      run.child.kill('SIGKILL');
      await run.exited;
      const ledger = await env.ledger();
      const [cut] = await ledger.listRuns(1);
      // The workers still hold the killed pass's jobs as the resume starts.
      const resumed = await env.cli(['resume', cut!.id]);
      expect(resumed.code).toBe(0);
      expect((await ledger.resultCounts(cut!.id)).user).toEqual({ created: 600 });
      const counters = await env.sandbox.counters();
      expect(counters.duplicates).toEqual({});
      // Each user sent once: no create found existing and updated instead.
      expect(counters.calls).toEqual({ 'POST /user': 600 });
    } finally {
      await sandboxFaults();
    }
  }, 120_000);

  it('Redis loses everything under a running command: it enqueues the lost jobs again, nothing twice', async () => {
    await fetch(`${env.sandbox.url}/_sandbox/reset`, { method: 'POST' });
    const run = env.spawnCli(['run', env.usersJob('vanish', 400, 100, 8)]);
    await waitFor(async () => ((await env.sandbox.counters()).total ?? 0) > 80);
    expect(await env.loseRedis()).toBeGreaterThan(0);
    // The command notices no result for 10 s and an empty queue, and enqueues again.
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain('queue lost jobs: enqueueing them again');
    const ledger = await env.ledger();
    const [latest] = await ledger.listRuns(1);
    expect((await ledger.resultCounts(latest!.id)).user).toEqual({ created: 400 });
    expect((await env.sandbox.counters()).duplicates).toEqual({});
  }, 120_000);

  const VAST = Number(process.env.EVSYNC_TEST_VAST_USERS ?? 15_000);
  it(
    'Redis loses everything while the feed waits on 10,000 outstanding jobs: it enqueues them again (issue #41 item 1)',
    async () => {
      await fetch(`${env.sandbox.url}/_sandbox/reset`, { method: 'POST' });
      const second = env.startWorker(8);
      try {
        // More than 10,000 past the calls at the loss: the feed still holds a chunk then.
        const run = env.spawnCli(['run', env.usersJob('vast', VAST, 5_000, 16)]);
        await waitFor(async () => ((await env.sandbox.counters()).total ?? 0) > 2_000, 60_000);
        expect(await env.loseRedis()).toBeGreaterThan(0);
        const lost = Date.now();
        expect(await run.exited).toBe(0);
        console.log(
          `${VAST} users, Redis lost at 2,000 calls: the run ended ${((Date.now() - lost) / 1000).toFixed(1)} s later`,
        );
        expect(run.output()).toContain('queue lost jobs: enqueueing them again');
        const ledger = await env.ledger();
        const [latest] = await ledger.listRuns(1);
        expect((await ledger.resultCounts(latest!.id)).user).toEqual({ created: VAST });
        const counters = await env.sandbox.counters();
        expect(counters.duplicates).toEqual({});
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }
    },
    240_000 * Math.max(1, VAST / 15_000),
  );

  it('run --detach returns with the run id; the workers finish the run', async () => {
    await fetch(`${env.sandbox.url}/_sandbox/reset`, { method: 'POST' });
    const detached = await env.cli(['run', env.usersJob('detach', 120, 500, 8), '--detach']);
    expect(detached.code).toBe(0);
    const runId = /^(\d{8}-\d{6}-[0-9a-f]+)$/m.exec(detached.output)?.[1];
    expect(runId).toBeDefined();
    const ledger = await env.ledger();
    await waitFor(async () => (await ledger.getRun(runId!))?.status === 'completed');
    expect((await ledger.resultCounts(runId!)).user).toEqual({ created: 120 });
  }, 90_000);

  it('a detached run no worker has taken says it waits for one, until a worker sends it', async () => {
    // A queue of its own, with no worker yet.
    const alone = { EVSYNC_QUEUE_PREFIX: `${env.prefix}-alone` };
    const detached = await env.cli(['run', env.usersJob('alone', 40, 500, 8), '--detach'], alone);
    const runId = /^(\d{8}-\d{6}-[0-9a-f]+)$/m.exec(detached.output)![1]!;
    const host = conferenceHost(env.sandbox.url);
    const runs = await env.cli(['runs', '--limit', '1'], alone);
    expect(runs.output).toMatch(
      new RegExp(`^${runId} +alone +${host} +manual +upsert +waiting for a worker `, 'm'),
    );
    const status = await env.cli(['status'], alone);
    expect(status.output).toContain(
      `${runId}  alone  ${host}  0 of 40 intents done; waiting for a worker to take it`,
    );
    const worker = env.spawnCli(['worker', '--concurrency', '4'], alone);
    try {
      const ledger = await env.ledger();
      await waitFor(async () => (await ledger.getRun(runId))?.status === 'completed');
      expect((await env.cli(['runs', '--limit', '1'], alone)).output).toMatch(
        new RegExp(`^${runId} +alone +${host} +manual +upsert +completed `, 'm'),
      );
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
  }, 90_000);

  it('a schedule fires a run once per tick, never two runs of one job at once', async () => {
    await fetch(`${env.sandbox.url}/_sandbox/reset`, { method: 'POST' });
    // Each run takes about 3 s (90 users at 30/s), longer than the 2 s between ticks.
    const job = env.usersJob('tick', 90, 30, 4);
    env.write({
      [job]: `${readFileSync(join(env.dir, job), 'utf8')}schedule: { cron: "*/2 * * * * *", tz: Europe/Berlin, seconds: true }\n`,
    });
    const registered = await env.cli(['schedule', job]);
    expect(registered.code).toBe(0);
    expect(registered.output).toContain('Scheduled tick');
    const again = await env.cli(['schedule', job]);
    expect(again.code, again.output).toBe(0);
    const listed = await env.cli(['schedule', '--list']);
    expect(listed.output.match(/^tick /gm)).toHaveLength(1);
    const ledger = await env.ledger();
    const runsOfTick = async () => (await ledger.listRuns(100)).filter((run) => run.jobName === 'tick');
    try {
      await waitFor(
        async () => (await runsOfTick()).filter((run) => run.status === 'completed').length >= 2,
        60_000,
      );
    } finally {
      expect((await env.cli(['schedule', '--remove', 'tick'])).code).toBe(0);
    }
    const runs = (await runsOfTick()).sort((a, b) => a.seq - b.seq);
    for (const run of runs) expect(run.options.trigger).toBe('schedule');
    // While one ran, the ticks that fired found its lock: skipped, with the reason.
    const skipped = runs.filter((run) => run.status === 'skipped');
    expect(skipped.length).toBeGreaterThan(0);
    expect(String(skipped[0]!.options.skipped)).toContain('is being run by run');
    // No two runs that sent anything overlapped in time.
    const ran = runs.filter((run) => run.status !== 'skipped' && run.finishedAt !== null);
    for (let i = 1; i < ran.length; i += 1)
      expect(ran[i]!.startedAt.getTime()).toBeGreaterThanOrEqual(ran[i - 1]!.finishedAt!.getTime() - 1000);
    const created = Object.values((await env.sandbox.counters()).duplicates);
    expect(created).toEqual([]);
  }, 120_000);

  it('the platform failing mid-phase stops the run at the streak, not at the end of the phase', async () => {
    await fetch(`${env.sandbox.url}/_sandbox/reset`, { method: 'POST' });
    await sandboxFaults('latency=20');
    const run = env.spawnCli(['run', env.usersJob('down', 600, 1000, 8)]);
    try {
      await waitFor(async () => ((await env.sandbox.counters()).total ?? 0) > 100);
      await sandboxFaults('503=1');
      expect(await run.exited).toBe(3);
    } finally {
      await sandboxFaults();
    }
    expect(run.output()).toMatch(/the platform failed \(5xx\) for \d+ intents in a row/);
    const ledger = await env.ledger();
    const runId = runIdOf(run.output());
    // The streak and what was in flight failed; the phase's other users were not sent.
    const failed = (await ledger.resultCounts(runId)).user?.failed ?? 0;
    // The jobs in flight when it stopped were recorded before the run's counts were taken.
    expect((await ledger.getRun(runId))!.counts.failed).toBe(failed);
    expect(failed).toBeGreaterThanOrEqual(16);
    expect(failed).toBeLessThan(100);
    expect((await ledger.pendingIntents(runId)).length).toBeGreaterThan(300);

    const resumed = await env.cli(['resume', runId]);
    expect(resumed.code).toBe(0);
    expect((await ledger.resultCounts(runId)).user).toEqual({ created: 600 });
    expect((await env.sandbox.counters()).duplicates).toEqual({});
  }, 120_000);

  it('the platform refusing the signature stops the run (exit 3) instead of failing every row', async () => {
    // Workers of their own, with a wrong key, on a queue of their own.
    const wrong = { EVSYNC_QUEUE_PREFIX: `${env.prefix}-badkey`, EVSYNC_SIGNING_KEY: 'not-the-signing-key' };
    const worker = env.spawnCli(['worker', '--concurrency', '4'], wrong);
    try {
      const run = await env.cli(['run', env.usersJob('badkey', 80, 1000, 4)], wrong);
      expect(run.code).toBe(3);
      expect(run.output).toContain('refused the signature');
      const ledger = await env.ledger();
      const [latest] = await ledger.listRuns(1);
      expect(latest?.status).toBe('aborted');
      // Stopped, not failed: every intent is either still pending (not taken by a worker
      // yet) or failed for the refused signature, and `evsync resume` sends both again.
      const pending = (await ledger.pendingIntents(latest!.id)).length;
      const refused = await ledger.results(latest!.id, { errorCodes: PLATFORM_DOWN_CODES });
      expect(pending + refused.length).toBe(80);
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
  }, 90_000);
});
