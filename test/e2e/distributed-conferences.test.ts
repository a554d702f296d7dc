import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistributedEnv, type CliProcess, type DistributedEnv } from '../helpers/distributed-env.js';
import {
  conferenceVars,
  platformBlock,
  startSandboxProcess,
  type SandboxProcess,
} from '../helpers/sandbox-process.js';
import { serviceAvailable } from '../helpers/services.js';
import { people, usersCsv } from '../helpers/users-csv.js';

// Distributed mode serving two conferences at once (docs/distributed.md, "Several
// conferences"): one pool of workers, each signing a job with its run's conference's key
// from its own environment, each conference's rate limit its key's; a worker without
// credentials for a conference does not serve its lane. The built CLI.
const ready = (await serviceAvailable('redis')) && (await serviceAvailable('postgres'));
const USERS = 120;

function job(name: string, prefix: string, perSecond: number): string {
  return (
    `name: ${name}\nrate: { per_second: ${perSecond}, concurrency: 6 }\n` +
    platformBlock(prefix) +
    'steps:\n  - { mapping: users, source: { csv: ./people.csv } }\n'
  );
}

async function usersOn(sandbox: SandboxProcess): Promise<number> {
  const counters = await sandbox.counters();
  return counters.calls['POST /user'] ?? 0;
}

describe.runIf(ready)('distributed mode, several conferences at once', () => {
  let env: DistributedEnv;
  let b: SandboxProcess;
  let workers: CliProcess[] = [];

  beforeAll(async () => {
    // Two platforms with different keys and limits: 60/s and 40/s, bursts of 2.
    env = await startDistributedEnv({ sandboxArgs: ['--rate-limit', '60/s'] });
    b = await startSandboxProcess(['--rate-limit', '40/s']);
    env.write({
      'people.csv': usersCsv(people(USERS, 'mc')),
      'conf-a.yaml': job('conf-a', 'CONF_A', 50),
      'conf-b.yaml': job('conf-b', 'CONF_B', 30),
    });
  }, 120_000);
  afterAll(async () => {
    await env?.close();
    await b?.stop();
  }, 60_000);

  it('3 workers send two conferences’ runs at once, each to its own platform, once, within its limit', async () => {
    const both = { ...conferenceVars('CONF_A', env.sandbox), ...conferenceVars('CONF_B', b) };
    // The third worker knows only conference A: it refuses B's jobs, which the others take.
    workers = [
      env.spawnCli(['worker', '--concurrency', '4'], both),
      env.spawnCli(['worker', '--concurrency', '4'], both),
      env.spawnCli(['worker', '--concurrency', '4'], conferenceVars('CONF_A', env.sandbox)),
    ];
    const [runA, runB] = await Promise.all([
      env.cli(['run', 'conf-a.yaml'], both),
      env.cli(['run', 'conf-b.yaml'], both),
    ]);
    expect(runA.code, runA.output).toBe(0);
    expect(runB.code, runB.output).toBe(0);
    expect(await usersOn(env.sandbox)).toBe(USERS);
    expect(await usersOn(b)).toBe(USERS);
    for (const sandbox of [env.sandbox, b]) {
      const counters = await sandbox.counters();
      expect(counters.duplicates).toEqual({});
      // The platform's own burst (2) may draw a 429 or two, never a storm.
      expect(counters.statuses['429'] ?? 0).toBeLessThanOrEqual(4);
    }
    const status = await env.cli(['status'], both);
    // Each conference key has its lane: A's taken by all three workers, B's by the two with its key.
    const workersOf = (host: string): number =>
      (new RegExp(`${host} \\(key .*; workers (.+)$`, 'm').exec(status.output)?.[1] ?? '').split(', ').length;
    expect(workersOf(new URL(env.sandbox.url).host)).toBe(3);
    expect(workersOf(new URL(b.url).host)).toBe(2);
    // The worker without B's key never took one of its jobs to put it back.
    expect(workers[2]!.output()).not.toContain('refusing intents of');
    for (const key of [env.sandbox.signingKey, b.signingKey]) expect(status.output).not.toContain(key);
  }, 180_000);

  it('a worker pointed at another conference takes none of the run’s jobs, and sends nothing there', async () => {
    await Promise.all(
      workers.map(async (w) => {
        w.child.kill('SIGTERM');
        await w.exited;
      }),
    );
    const beforeB = await b.counters();
    // A job without `platform:`: EVSYNC_* name conference A for the run; this worker's name B.
    env.write({
      'plain.yaml':
        'name: plain\nrate: { per_second: 50, concurrency: 4 }\nsteps:\n  - { mapping: users, source: { csv: ./plain.csv } }\n',
      'plain.csv': usersCsv(people(20, 'pl')),
    });
    const wrong = env.spawnCli(['worker'], {
      EVSYNC_BASE_URL: b.url,
      EVSYNC_KEY_ID: b.keyId,
      EVSYNC_SIGNING_KEY: b.signingKey,
    });
    const run = env.spawnCli(['run', 'plain.yaml']);
    // Its EVSYNC_* name B: it does not serve A's lane, which the run says at once.
    const until = Date.now() + 60_000;
    while (!run.output().includes('no worker serves the lane of') && Date.now() < until) await sleep(100);
    expect(run.output()).toContain('no worker serves the lane of');
    expect(wrong.output()).not.toContain('refusing intents of');
    expect((await b.counters()).total).toBe(beforeB.total);
    // A worker for A comes: the run ends, complete, on A only.
    const right = env.spawnCli(['worker']);
    expect(await run.exited).toBe(0);
    expect((await b.counters()).total).toBe(beforeB.total);
    const onA = await env.sandbox.counters();
    expect(Object.keys(onA.duplicates)).toEqual([]);
    right.child.kill('SIGTERM');
    wrong.child.kill('SIGTERM');
    await Promise.all([right.exited, wrong.exited]);
  }, 180_000);
});
