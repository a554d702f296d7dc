import { Queue, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';
import type { IntentJob, IntentJobResult } from './intent-job.js';
import { startIntentWorker, type IntentWorkerOptions } from './intent-queue.js';
import { laneHost, laneQueueName, lanesServedBy, readLanes, type LaneNote } from './lanes.js';

type IntentWorker = Worker<IntentJob, IntentJobResult>;

export interface LaneWorkersOptions extends Pick<IntentWorkerOptions, 'gaveUp' | 'concurrency'> {
  /** As `IntentWorkerOptions.handle`, told the id of the lane the job was taken from. */
  handle: (job: IntentJob, holdsLock: () => Promise<boolean>, lane: string) => Promise<IntentJobResult>;
  redis: Redis;
  prefix: string;
  logger: Logger;
  /** This worker's environment as it is now (`.env` read again when it changed). */
  env: () => NodeJS.ProcessEnv;
  /** Told of each lane worker started, to listen to it. */
  started?: (worker: IntentWorker) => void;
  /** How often the lanes runs noted are read again. @defaultValue 1 s */
  refreshMs?: number;
  /** Lanes this worker stays off for now: the platform refused its signature there. */
  refuses?: (lane: string) => boolean;
  /** Told when this worker started or stopped taking a lane's jobs. */
  changed?: () => void;
}

/**
 * A worker process's takers, one per lane it holds credentials for (docs/distributed.md,
 * "Lanes"): it reads the lanes runs noted in Redis and its environment every second, starts
 * taking a lane's jobs once its environment can sign for the lane's key, and stops (finishing
 * the jobs in flight) when it no longer can. A lane it cannot serve it never takes a job of.
 */
export class LaneWorkers {
  private readonly workers = new Map<string, IntentWorker>();
  /** The served lanes' queues, for `/metrics`: opened at the first scrape, kept while served. */
  private readonly queues = new Map<string, Queue>();
  private readonly timer: NodeJS.Timeout;
  private refreshing: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: LaneWorkersOptions) {
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), options.refreshMs ?? 1000);
    this.timer.unref();
  }

  /** Reads the lanes and the environment again, starting and stopping lane workers to match. */
  refresh(): Promise<void> {
    this.refreshing ??= this.match().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** A 429 on the lane's key: its workers everywhere stop taking its jobs for `ms`, no other lane's. */
  pause(lane: string, ms: number): void {
    void this.workers
      .get(lane)
      ?.rateLimit(ms)
      .catch(() => undefined);
  }

  /** The lanes this process takes jobs of. */
  serving(): string[] {
    return [...this.workers.keys()];
  }

  private async match(): Promise<void> {
    if (this.closed) return;
    const lanes = await readLanes(this.options.redis, this.options.prefix);
    const served = lanesServedBy(lanes.values(), this.options.env());
    const refused = new Set([...served].filter((id) => this.options.refuses?.(id) === true));
    for (const id of refused) served.delete(id);
    const before = this.workers.size;
    let left = 0;
    for (const id of served) {
      const lane = lanes.get(id);
      if (this.workers.has(id) || lane === undefined || this.closed) continue;
      this.workers.set(id, this.start(lane));
      this.options.logger.info(
        { lane: id, conference: laneHost(lane) },
        `serving the lane of ${laneHost(lane)}`,
      );
    }
    // A lane Redis forgot (restarted empty) stays served until the run notes it again.
    for (const [id, worker] of this.workers) {
      if (served.has(id) || !lanes.has(id)) continue;
      this.workers.delete(id);
      const queue = this.queues.get(id);
      this.queues.delete(id);
      await queue?.close();
      this.options.logger.info(
        { lane: id },
        refused.has(id)
          ? `leaving the lane of ${laneHost(lanes.get(id)!)} for a minute: the platform refused this worker's signature`
          : "leaving a lane: this environment no longer holds its key's credentials",
      );
      left += 1;
      await worker.close();
    }
    if (left > 0 || this.workers.size !== before) this.options.changed?.();
  }

  private start(lane: LaneNote): IntentWorker {
    const worker = startIntentWorker({
      connection: this.options.redis,
      prefix: this.options.prefix,
      queueName: laneQueueName(lane.id),
      concurrency: this.options.concurrency,
      handle: (job, holdsLock) => this.options.handle(job, holdsLock, lane.id),
      gaveUp: this.options.gaveUp,
    });
    this.options.started?.(worker);
    return worker;
  }

  /** The served lanes' job counts by state, BullMQ's own export (the worker's `/metrics`). */
  async exportPrometheusMetrics(): Promise<string> {
    const texts = await Promise.all(
      [...this.workers.keys()].map((id) => {
        let queue = this.queues.get(id);
        if (queue === undefined) {
          queue = new Queue(laneQueueName(id), {
            connection: this.options.redis,
            prefix: this.options.prefix,
          });
          this.queues.set(id, queue);
        }
        return queue.exportPrometheusMetrics();
      }),
    );
    return texts.join('\n');
  }

  /** Stops taking jobs; those in flight finish and are recorded. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.refreshing?.catch(() => undefined);
    await Promise.all([
      ...[...this.workers.values()].map((worker) => worker.close()),
      ...[...this.queues.values()].map((queue) => queue.close()),
    ]);
  }
}
