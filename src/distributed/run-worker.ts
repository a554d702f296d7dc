import { once } from 'node:events';
import type { Ledger } from '../ledger/ledger.js';
import { openLedger } from '../ledger/open-ledger.js';
import type { Logger } from '../log/logger.js';
import type { DistributedConfig } from './distributed-config.js';
import { IntentHandler } from './intent-handler.js';
import { WORKER_NAME, type IntentJob, type IntentJobResult } from './intent-job.js';
import { LaneWorkers } from './lane-workers.js';
import { liveEnv } from '../config/dotenv-file.js';
import type { Worker } from 'bullmq';
import { IntentQueue, startIntentWorker } from './intent-queue.js';
import { reportQueueErrors } from './queue-errors.js';
import { ConferencePlatforms } from './conference-platforms.js';
import { connectRedis } from './open-distributed.js';
import { Schedules, startControlWorker } from './schedules.js';
import { watchNotices } from '../sync/notify/notice-watch.js';
import { metricsText, readiness } from '../sync/runs/run-metrics.js';
import { startHealthServer } from './health-server.js';
import { CallTally } from '../sync/execute/call-tally.js';
import { deliveriesSettled } from '../sync/notify/background-deliveries.js';

export interface WorkerOptions {
  config: DistributedConfig;
  /** Intents this process sends at once. */
  concurrency: number;
  logger: Logger;
  /** Aborting it stops taking jobs; jobs in flight finish and are recorded. */
  signal: AbortSignal;
  /** A ledger to use instead of `DATABASE_URL`'s (tests). */
  ledger?: Ledger;
  /** Where to serve `/metrics`, `/healthz` and `/readyz` (docs/metrics.md). @defaultValue not served */
  metrics?: { port: number; host: string };
}

/**
 * `evsync worker`: takes intents from the lanes whose keys it holds (and the shared queue of
 * releases before lanes) until `signal` aborts, then finishes the jobs in flight and returns.
 * A worker killed instead leaves its jobs to BullMQ's stalled-job check, which hands them to
 * another worker.
 */
export async function runWorker(options: WorkerOptions): Promise<void> {
  const { config, logger } = options;
  const ledger = options.ledger ?? (await openLedger());
  const redis = await connectRedis(config, 'worker');
  const env = liveEnv();
  // Set below: a 429's pause also stops every worker taking new jobs of that lane for as long.
  let pauseLane = (_ms: number, _lane: string): void => undefined;
  // One client per conference the runs name, signed with the keys of this worker's environment.
  const platforms = new ConferencePlatforms({
    redis,
    prefix: config.prefix,
    concurrency: options.concurrency,
    logger,
    onPause: (ms, lane) => pauseLane(ms, lane),
    env,
  });
  const handler = new IntentHandler({
    ledger,
    platformFor: (run, lane) => platforms.platformFor(run, lane),
    logger,
    onRefused: (refusal) => platforms.noteRefused(refusal.host, refusal.reason),
    onSignatureRefused: (run, problem) => platforms.signatureRefused(run, problem),
  });
  const takers = {
    concurrency: options.concurrency,
    handle: (job: IntentJob, holdsLock: () => Promise<boolean>, lane?: string) =>
      handler.handle(job, holdsLock, lane),
    gaveUp: (job: IntentJob, error: unknown, tries: number) => handler.gaveUp(job, error, tries),
  };
  const listen = (taker: Worker<IntentJob, IntentJobResult>): void => {
    taker.on('failed', (job, error) =>
      logger.error({ err: error, runId: job?.data.runId, kind: job?.data.kind }, 'intent job failed'),
    );
    reportQueueErrors(taker, 'worker', logger);
  };
  // The shared queue of releases before lanes: drained of the jobs runs enqueued there before
  // the upgrade. Every worker listens on it, which is also how runs count the workers alive.
  const worker = startIntentWorker({ ...takers, connection: redis, prefix: config.prefix });
  listen(worker);
  // One taker per lane whose key this environment holds (docs/distributed.md, "Several
  // conferences").
  const lanes = new LaneWorkers({
    ...takers,
    redis,
    prefix: config.prefix,
    logger,
    env,
    started: listen,
    refuses: (lane) => platforms.refusesLane(lane),
    changed: () => platforms.lanesChanged(),
  });
  pauseLane = (ms, lane) => lanes.pause(lane, ms);
  await lanes.refresh();
  const control = startControlWorker({
    connection: redis,
    prefix: config.prefix,
    logger,
    signal: options.signal,
    env,
  });
  reportQueueErrors(control, 'schedules worker', logger);
  // Runs cut off and schedules missed: told by whichever worker (or dashboard) looks first.
  const schedules = new Schedules(redis, config.prefix);
  const calls = new CallTally(ledger, { logger });
  const watch = watchNotices({ ledger, logger, schedules: () => schedules.list() });
  const intents = options.metrics ? new IntentQueue(redis, config.prefix) : undefined;
  const health = options.metrics
    ? await startHealthServer({
        ...options.metrics,
        logger,
        ready: () => readiness({ redis: () => redis.ping(), ledger: () => ledger.ledgerId() }),
        metrics: () =>
          metricsText(ledger, [
            () => intents!.queue.exportPrometheusMetrics(),
            () => lanes.exportPrometheusMetrics(),
            () => schedules.exportPrometheusMetrics(),
          ]),
      })
    : undefined;
  control.on('failed', (job, error) =>
    logger.error({ err: error, control: job?.name, data: job?.data }, 'scheduled or detached run failed'),
  );
  logger.info(
    {
      worker: WORKER_NAME,
      concurrency: options.concurrency,
      redis: config.description,
      prefix: config.prefix,
    },
    'worker ready: taking intents of the lanes whose keys it holds',
  );
  try {
    if (!options.signal.aborted) await once(options.signal, 'abort');
    logger.info('worker stopping: finishing the intents in flight');
    // A scheduled run this process coordinates stops as `evsync run` does on a signal.
    await Promise.all([worker.close(), lanes.close(), control.close()]);
  } finally {
    await health?.close();
    await calls.close();
    await intents?.close();
    await watch.stop();
    await schedules.close();
    await platforms.close();
    redis.disconnect();
    // Notices of runs this worker ended are recorded in the ledger (bounded by `retry.deadline`).
    await deliveriesSettled();
    if (!options.ledger) await ledger.close();
  }
  logger.info('worker stopped');
}
