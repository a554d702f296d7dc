/**
 * Distributed mode's figures (docs/distributed.md): the enqueue rate of a 100,000-intent
 * run into Redis; intents/s at 20 ms platform latency with 1 worker process vs 3 at equal
 * per-process concurrency, and BullMQ vs inline at equal total concurrency; rate-limit
 * utilisation with the sandbox at 50 requests/s and 3 workers; peak RSS of the run process
 * and of each worker on a big run. Sandbox, workers and runs are separate processes; the
 * ledger is a PostgreSQL database of the bench's own, the queue a Redis prefix of its own.
 *
 * Throughput is the platform's view: the sandbox's calls over the span between its first
 * and its last (one call per user), the same measure for both engines. Workers are
 * long-lived processes: each set takes a run of 1,000 users before the one measured, so
 * that V8 has compiled their hot code, as it has in a worker that has been up for a while.
 * The inline engine is measured as it runs, a process per run.
 *
 *   npx tsx test/bench/distributed.ts [users=6000] [rssUsers=200000] [latencies=20,100] [perProcess=4,8]
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import type { IntentJob } from '../../src/distributed/intent-job.js';
import { IntentQueue } from '../../src/distributed/intent-queue.js';
import { startDistributedEnv, type CliProcess, type DistributedEnv } from '../helpers/distributed-env.js';
import { SERVICES } from '../helpers/services.js';
import { fmt, machineLoad, peakRssOf } from './sync-bench-support.js';

const users = Number(process.argv[2] ?? 6000);
/** Users of the run each set of workers takes before the measured one. */
const WARM_UP = 1000;
const rssUsers = Number(process.argv[3] ?? 200_000);
/** Platform latencies to measure the scaling at: the issue's 20 ms, and one where the network dominates. */
const LATENCIES = (process.argv[4] ?? '20,100').split(',').map(Number);
/** Intents at a time per worker process: where the work waits on the network, and where 2 cores run out. */
const PER_PROCESS = (process.argv[5] ?? '4,8').split(',').map(Number);

/** `value` against its target: the share, and whether it is met. */
function ratio(value: number, target: number, label: string): string {
  return `${fmt(value / target, 2)}× ${label} (${value >= target ? 'met' : 'NOT met'})`;
}

function against(value: number, target: number, unit: string): string {
  return `${fmt(value, 2)}${unit} (target ≥ ${fmt(target, 2)}${unit}: ${value >= target ? 'met' : 'NOT met'})`;
}

async function enqueueRate(): Promise<void> {
  const redis = new Redis(SERVICES.redis.url);
  const prefix = `evsync-bench-${randomBytes(4).toString('hex')}`;
  const queue = new IntentQueue(redis, prefix);
  const jobs: IntentJob[] = Array.from({ length: 100_000 }, (_, i) => ({
    runId: '20261125-010000-bench',
    epoch: 'e1',
    phase: 'users',
    kind: 'user',
    key: `user-${i}@example.org`,
  }));
  const started = performance.now();
  await queue.enqueue(jobs);
  const seconds = (performance.now() - started) / 1000;
  const counts = await queue.queue.getJobCounts('waiting');
  await queue.queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
  const rate = jobs.length / seconds;
  console.log('\n## enqueue of a 100,000-intent phase (addBulk, 1,000 per call)');
  console.log(
    `${fmt(counts.waiting ?? 0)} jobs in Redis in ${fmt(seconds, 2)} s → ${fmt(rate)} intents/s; ${ratio(rate, 15_000, 'the 15,000/s target')}`,
  );
}

/** Accepted calls/s as the sandbox saw them during `run` (one per user intent here), and its 429s. */
async function sendRate(
  env: DistributedEnv,
  run: () => Promise<void>,
): Promise<{ rate: number; refused: number }> {
  await env.sandbox.resetCounters();
  await run();
  const { total, statuses, firstAt, lastAt } = await env.sandbox.counters();
  if (firstAt === undefined || lastAt === undefined) throw new Error('the sandbox saw no call');
  const refused = statuses['429'] ?? 0;
  return { rate: (total - refused) / Math.max(0.001, (lastAt - firstAt) / 1000), refused };
}

async function startWorkers(env: DistributedEnv, count: number, perProcess = 8): Promise<CliProcess[]> {
  const workers = Array.from({ length: count }, () => env.startWorker(perProcess));
  // Ready when each has logged that it takes intents.
  const until = Date.now() + 60_000;
  while (workers.some((worker) => !worker.output().includes('worker ready'))) {
    if (Date.now() > until) throw new Error('workers did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return workers;
}

async function stopWorkers(workers: CliProcess[]): Promise<void> {
  for (const worker of workers) worker.child.kill('SIGTERM');
  await Promise.all(workers.map((worker) => worker.exited));
}

async function latencyScaling(latencyMs: number, perProcess: number): Promise<void> {
  const env = await startDistributedEnv({ sandboxArgs: ['--faults', `latency=${latencyMs}`] });
  try {
    const total = perProcess * 3;
    const rates: Record<string, number> = {};
    const cpuPerIntent: Record<string, number> = {};
    for (const count of [1, 3]) {
      const workers = await startWorkers(env, count, perProcess);
      const warm = await env.cli(['run', env.usersJob(`warm${count}`, WARM_UP, 10_000, total)]);
      if (warm.code !== 0) throw new Error(warm.output);
      const name = `lat${count}`;
      const cpuBefore = workers.map((worker) => cpuOf(worker.child.pid));
      ({ rate: rates[name] } = await sendRate(env, async () => {
        const run = await env.cli(['run', env.usersJob(name, users, 10_000, total)]);
        if (run.code !== 0) throw new Error(run.output);
      }));
      const cpu = workers.reduce(
        (total, worker, i) => total + cpuOf(worker.child.pid) - (cpuBefore[i] ?? 0),
        0,
      );
      cpuPerIntent[name] = (cpu * 1000) / users;
      await stopWorkers(workers);
    }
    const { rate: inlineRate } = await sendRate(env, async () => {
      const inline = await env.cli(['run', env.usersJob('inline', users, 10_000, total)], { REDIS_URL: '' });
      if (inline.code !== 0) throw new Error(inline.output);
    });
    const one = rates.lat1 ?? 0;
    const three = rates.lat3 ?? 0;
    console.log(
      `\n## ${latencyMs} ms latency, ${fmt(users)} users, ${perProcess} intents at a time per worker process`,
    );
    console.log(
      `1 worker: ${fmt(one)} intents/s; 3 workers: ${fmt(three)} intents/s → speed-up ${against(three / one, 2.5, '×')}`,
    );
    console.log(
      `inline at concurrency ${total}: ${fmt(inlineRate)} intents/s; BullMQ with 3 × ${perProcess}: ${fmt(three)} → ${against((three / inlineRate) * 100, 80, ' %')} of inline's rate`,
    );
    console.log(
      `ceiling: ${total} ÷ ${latencyMs} ms = ${fmt(total / (latencyMs / 1000))} intents/s; worker CPU per intent: ${fmt(cpuPerIntent.lat1 ?? 0, 2)} ms (1 worker), ${fmt(cpuPerIntent.lat3 ?? 0, 2)} ms (3 workers); machine: ${machineLoad()}`,
    );
  } finally {
    await env.close();
  }
}

async function rateUtilisation(): Promise<void> {
  const env = await startDistributedEnv({ sandboxArgs: ['--rate-limit', '50/s:50'] });
  try {
    const workers = await startWorkers(env, 3);
    const count = 750;
    const { rate, refused } = await sendRate(env, async () => {
      const run = await env.cli(['run', env.usersJob('limited', count, 50, 12)]);
      if (run.code !== 0) throw new Error(run.output);
    });
    await stopWorkers(workers);
    console.log(`\n## rate limit: sandbox at 50 requests/s, 3 workers, ${count} users`);
    console.log(
      `${fmt(rate, 1)} accepted requests/s: ${against((rate / 50) * 100, 95, ' %')} of the limit; 429 answers: ${refused}`,
    );
  } finally {
    await env.close();
  }
}

/** CPU seconds a live process has used (user + system), from /proc. */
function cpuOf(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

async function peakMemory(): Promise<void> {
  const env = await startDistributedEnv();
  try {
    const workers = await startWorkers(env, 3);
    const job = env.usersJob('rss', rssUsers, 10_000, 24);
    const started = performance.now();
    const run = env.spawnCli(['run', job]);
    let runPeak = 0;
    const sampler = setInterval(() => (runPeak = Math.max(runPeak, peakRssOf(run.child.pid) ?? 0)), 250);
    const code = await run.exited;
    clearInterval(sampler);
    if (code !== 0) throw new Error(run.output());
    const seconds = (performance.now() - started) / 1000;
    const workerPeaks = workers.map((worker) => peakRssOf(worker.child.pid) ?? 0);
    await stopWorkers(workers);
    console.log(`\n## peak RSS, ${fmt(rssUsers)} users (intents) through 3 workers, no latency`);
    console.log(
      `run process: ${fmt(runPeak)} MB; workers: ${workerPeaks.map((mb) => `${fmt(mb)} MB`).join(', ')}`,
    );
    console.log(`wall time ${fmt(seconds, 1)} s → ${fmt(rssUsers / seconds)} intents/s`);
  } finally {
    await env.close();
  }
}

console.log(`machine: ${machineLoad()}`);
await enqueueRate();
for (const latencyMs of LATENCIES)
  for (const perProcess of PER_PROCESS) await latencyScaling(latencyMs, perProcess);
await rateUtilisation();
if (rssUsers > 0) await peakMemory();
console.log(`\nmachine after: ${machineLoad()}`);
