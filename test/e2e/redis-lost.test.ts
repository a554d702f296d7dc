import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistributedEnv, type DistributedEnv } from '../helpers/distributed-env.js';
import { SERVICES, serviceAvailable } from '../helpers/services.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

// Redis going away under a distributed run and under the dashboard (docs/distributed.md,
// "When Redis loses everything"): one message with the run's state and the command that
// finishes it, no raw traces; the dashboard's queue page says what is wrong (503). The
// built CLI; Redis is cut through a proxy, never stopped.
const ready = (await serviceAvailable('redis')) && (await serviceAvailable('postgres'));

describe.runIf(ready)('Redis lost', () => {
  let env: DistributedEnv;
  let proxy: TcpProxy;

  beforeAll(async () => {
    env = await startDistributedEnv();
  }, 120_000);
  afterAll(async () => env?.close(), 60_000);

  it('a run that loses Redis says so once, with its state and the resume that finishes it', async () => {
    proxy = await startTcpProxy(SERVICES.redis);
    const through = { REDIS_URL: `redis://127.0.0.1:${proxy.port}` };
    const job = env.usersJob('cut', 300, 60, 4);
    const worker = env.spawnCli(['worker'], through);
    const run = env.spawnCli(['run', job], through);
    const until = Date.now() + 60_000;
    while (((await env.sandbox.counters()).calls['POST /user'] ?? 0) < 40 && Date.now() < until)
      await sleep(50);
    await proxy.cut();
    expect(await run.exited).toBe(3);
    const output = run.output();
    const runId = /Run (\d{8}-\d{6}-[0-9a-f]+)/.exec(output)?.[1];
    expect(runId).toBeDefined();
    expect(output).toContain('aborted');
    expect(output).toContain('Redis stopped answering');
    expect(output).toContain(`evsync resume ${runId}`);
    // Warnings, one per kind of trouble; no stack traces.
    expect(output).not.toMatch(/^\s+at /m);
    expect(output.match(/Redis connection trouble/g)?.length ?? 0).toBeLessThanOrEqual(3);
    // A worker waits for Redis to finish its jobs; a second signal stops it at once.
    worker.child.kill('SIGTERM');
    await sleep(500);
    worker.child.kill('SIGTERM');
    await worker.exited;
    expect(worker.output()).not.toMatch(/^\s+at /m);

    // Redis back (the same one, directly): the resume finishes it, nothing twice.
    const right = env.startWorker(4);
    const resumed = await env.cli(['resume', runId!]);
    expect(resumed.code, resumed.output).toBe(0);
    const counters = await env.sandbox.counters();
    expect(counters.calls['POST /user']).toBe(300);
    expect(counters.duplicates).toEqual({});
    right.child.kill('SIGTERM');
    await right.exited;
  }, 180_000);

  it('the dashboard’s queue page says Redis is not answering (503), and the runs still show', async () => {
    proxy = await startTcpProxy(SERVICES.redis);
    const token = 'redis-lost-test-token-0123456789abcdef';
    const dashboard = env.spawnCli(['dashboard', '--port', '0'], {
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      EVSYNC_DASHBOARD_TOKEN: token,
    });
    const until = Date.now() + 30_000;
    let url: string | undefined;
    while (url === undefined && Date.now() < until) {
      url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(dashboard.output())?.[1];
      await sleep(100);
    }
    expect(url, dashboard.output()).toBeDefined();
    const get = (path: string) =>
      fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
    expect((await get('/queue')).status).toBe(200);
    await proxy.cut();
    const queue = await get('/queue');
    expect(queue.status).toBe(503);
    const body = (await queue.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('EVSYNC_QUEUE_UNREACHABLE');
    expect(body.error.message).toContain('is not answering');
    expect((await get('/runs')).status).toBe(200);
    dashboard.child.kill('SIGTERM');
    await dashboard.exited;
  }, 120_000);
});
