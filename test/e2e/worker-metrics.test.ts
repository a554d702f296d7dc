import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistributedEnv, type CliProcess, type DistributedEnv } from '../helpers/distributed-env.js';
import { SERVICES, serviceAvailable } from '../helpers/services.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { waitFor } from '../helpers/wait-for.js';

// Issue #29 item 4 as an operator's Prometheus meets it: `evsync worker --metrics-port`, the
// built CLI, a sandbox answering 503s and limiting to 20/s while the job asks 60/s. A scrape
// during the run shows the calls by outcome and the queue's counts; `/readyz` fails while
// Redis is away (cut through a proxy, never stopped) and recovers after.
const ready = (await serviceAvailable('redis')) && (await serviceAvailable('postgres'));

/** The value of a sample line `name{labels} value` whose labels include `has`. */
function sample(text: string, name: string, has: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(has));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe.runIf(ready)('worker metrics and health', () => {
  let env: DistributedEnv;
  let proxy: TcpProxy;
  let worker: CliProcess;
  let base: string;

  beforeAll(async () => {
    env = await startDistributedEnv({
      sandboxArgs: ['--faults', '503=0.08,seed=29', '--rate-limit', '20/s'],
    });
    proxy = await startTcpProxy(SERVICES.redis);
    worker = env.spawnCli(['worker', '--concurrency', '8', '--metrics-port', '0'], {
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      LOG_LEVEL: 'info',
    });
    await waitFor(() => Promise.resolve(/metrics and health listening/.test(worker.output())), 60_000);
    base = /"url":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*metrics and health listening/.exec(worker.output())![1]!;
  }, 120_000);

  afterAll(async () => {
    worker?.child.kill('SIGTERM');
    await env?.close();
  }, 60_000);

  it('a scrape during a faulty run shows calls by outcome and the queue counts', async () => {
    const job = env.usersJob('scraped', 300, 60, 8);
    const run = env.spawnCli(['run', job]);
    let during = '';
    await waitFor(async () => {
      during = await (await fetch(`${base}/metrics`)).text();
      return (
        sample(during, 'evsync_platform_calls_total', 'outcome="429"') > 0 &&
        sample(during, 'evsync_platform_calls_total', 'outcome="5xx"') > 0
      );
    }, 90_000);
    expect(sample(during, 'evsync_platform_calls_total', 'outcome="2xx"')).toBeGreaterThan(0);
    expect(during).toMatch(/^bullmq_job_count\{queue="intents", state="waiting"\} \d+/m);
    expect(during).toContain('evsync_platform_call_duration_seconds_bucket{le="0.005",outcome="2xx"}');
    expect(await run.exited).toBe(0);
    const after = await (await fetch(`${base}/metrics`)).text();
    expect(sample(after, 'evsync_intents_total', 'action="created"')).toBe(300);
    expect(sample(after, 'evsync_runs', 'status="completed"')).toBe(1);
    expect(after).toContain('evsync_job_last_success_timestamp_seconds{job="scraped"}');
    expect(sample(after, 'evsync_rate_limit_waits_total', '')).toBeGreaterThanOrEqual(0);
    // One HELP and one TYPE per metric, though the worker joins several queues' exports
    // (the shared queue, its lane, the schedules): a second TYPE is an error to promtool.
    const declared = after.split('\n').filter((line) => line.startsWith('# TYPE '));
    expect(declared.length).toBeGreaterThan(3);
    expect(new Set(declared).size).toBe(declared.length);
    expect(new Set(declared.map((line) => line.split(' ')[2])).size).toBe(declared.length);
    // Nothing but counts: no key, no signing key, no address of a person.
    expect(after).not.toContain(env.sandbox.signingKey);
    expect(after).not.toContain('@');
  }, 180_000);

  it('/healthz answers; /readyz fails while Redis is away and recovers after', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    await proxy.cut();
    let body: { ready: boolean; checks: Record<string, string> } | undefined;
    await waitFor(async () => {
      const answer = await fetch(`${base}/readyz`);
      body = (await answer.json()) as typeof body;
      return answer.status === 503;
    }, 30_000);
    expect(body!.checks.ledger).toBe('ok');
    expect(body!.checks.redis).not.toBe('ok');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    await proxy.restore();
    await waitFor(async () => (await fetch(`${base}/readyz`)).status === 200, 60_000);
    await sleep(100);
  }, 120_000);
});
