import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistributedEnv, type CliProcess, type DistributedEnv } from '../helpers/distributed-env.js';
import { serviceAvailable } from '../helpers/services.js';

// Two jobs with different rates on one platform key, at once (docs/distributed.md, "One
// rate limit"): the lowest rate and concurrency a running job declares for the key are in
// force on its lane, not the last ones set, and `evsync status` says where they come from.
// The built CLI.
const ready = (await serviceAvailable('redis')) && (await serviceAvailable('postgres'));

describe.runIf(ready)('two jobs, two rates, one platform key', () => {
  let env: DistributedEnv;
  let workers: CliProcess[] = [];

  beforeAll(async () => {
    env = await startDistributedEnv({ sandboxArgs: ['--rate-limit', '40/s'] });
    workers = [env.startWorker(8), env.startWorker(8)];
  }, 120_000);
  afterAll(async () => {
    for (const worker of workers) worker.child.kill('SIGTERM');
    await Promise.all(workers.map((worker) => worker.exited));
    await env?.close();
  }, 60_000);

  it('the lower rate and concurrency hold for both while both run; status names both jobs', async () => {
    // 800 users at 40/s: 20 s, long enough for the fast job to start on a loaded machine.
    const slow = env.usersJob('slowjob', 800, 40, 8);
    const fast = env.usersJob('fastjob', 200, 200, 16);
    const first = env.spawnCli(['run', slow]);
    // The fast job starts once the slow one sends: the last rate set is the fast one's.
    const until = Date.now() + 30_000;
    while (((await env.sandbox.counters()).calls['POST /user'] ?? 0) < 10 && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const second = env.spawnCli(['run', fast]);
    // Both declared once the fast job's process has started: asked until then, not after a
    // fixed wait that a loaded machine outlasts (the slow job then ended before it).
    const both =
      /40 requests\/s \(burst 1\), the lowest of the jobs running with this key: slowjob 40\/s \(8 at a time\), fastjob 200\/s \(16 at a time\); 8 intents at a time, 40 jobs\/s/;
    let during = await env.cli(['status']);
    while (!both.test(during.output) && Date.now() < until + 30_000) during = await env.cli(['status']);
    expect(during.output).toMatch(both);
    expect([await first.exited, await second.exited]).toEqual([0, 0]);
    const counters = await env.sandbox.counters();
    // Each user created once; a refused request is sent again, so it counts twice.
    const refused = counters.statuses['429'] ?? 0;
    expect(counters.statuses['200']).toBe(1000);
    expect(counters.duplicates).toEqual({});
    expect(counters.calls['POST /user']).toBe(1000 + refused);
    // Sent at the platform's own rate, a request that arrives a millisecond early is refused
    // (its burst is 1): on this machine 10–11 of 1,010. At the fast job's 200/s, most of
    // its 200 would be.
    expect(refused).toBeLessThanOrEqual(25);
    const after = await env.cli(['status']);
    expect(after.output).toContain('as the last run of this key left it (no job sends with it now)');
  }, 180_000);
});
