import { createHash } from 'node:crypto';
import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { intentJobSchema, type IntentJob, type IntentJobResult } from './intent-job.js';
import type { IntentJobSink } from './distributed-executor.js';

/** The queue every run's intents go through; several installations share a Redis by prefix. */
export const INTENT_QUEUE = 'intents';

/** Jobs added per `addBulk` call: one round trip each, bounded memory for big phases. */
const ENQUEUE_CHUNK = 1000;

/**
 * Finished jobs kept in Redis, by age and count: the ledger keeps history, Redis only
 * carries the work (docs/distributed.md).
 */
const REMOVE_ON_COMPLETE = { age: 3600, count: 10_000 };
const REMOVE_ON_FAIL = { age: 24 * 3600, count: 10_000 };

/**
 * The BullMQ job id of an intent of one coordinator's pass: readable, and safe whatever
 * the client_id holds (BullMQ refuses `:` and all-digit ids), the key hashed.
 */
export function intentJobId(job: IntentJob): string {
  const key = createHash('sha256').update(job.key).digest('base64url').slice(0, 22);
  return `${job.runId}.${job.epoch}.${job.kind}.${key}`;
}

/** The producer side: `evsync run`, `resume` and `retry` enqueue through it. */
export class IntentQueue implements IntentJobSink {
  readonly queue: Queue<IntentJob, IntentJobResult>;

  constructor(connection: Redis, prefix: string) {
    this.queue = new Queue<IntentJob, IntentJobResult>(INTENT_QUEUE, { connection, prefix });
  }

  async enqueue(jobs: readonly IntentJob[]): Promise<void> {
    for (let start = 0; start < jobs.length; start += ENQUEUE_CHUNK) {
      await this.queue.addBulk(
        jobs.slice(start, start + ENQUEUE_CHUNK).map((data) => ({
          name: data.kind,
          data,
          opts: {
            jobId: intentJobId(data),
            removeOnComplete: REMOVE_ON_COMPLETE,
            removeOnFail: REMOVE_ON_FAIL,
            attempts: 5,
            backoff: { type: 'exponential', delay: 1000, jitter: 0.5 },
          },
        })),
      );
    }
  }

  async withdraw(jobs: readonly IntentJob[]): Promise<void> {
    for (let start = 0; start < jobs.length; start += ENQUEUE_CHUNK) {
      // `remove` leaves a job a worker holds (its lock) alone: that one finishes and is recorded.
      await Promise.all(
        jobs
          .slice(start, start + ENQUEUE_CHUNK)
          .map((job) => this.queue.remove(intentJobId(job)).catch(() => 0)),
      );
    }
  }

  async outstanding(): Promise<number> {
    const counts = await this.queue.getJobCounts(
      'waiting',
      'active',
      'delayed',
      'prioritized',
      'waiting-children',
    );
    return Object.values(counts).reduce((total, count) => total + count, 0);
  }

  async workers(): Promise<number> {
    return (await this.queue.getWorkers()).length;
  }

  /** The job's `rate.concurrency` as the queue's global concurrency: intents in flight on all workers. */
  async setConcurrency(concurrency: number): Promise<void> {
    await this.queue.setGlobalConcurrency(concurrency);
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}

export interface IntentWorkerOptions {
  connection: Redis;
  prefix: string;
  concurrency: number;
  handle: (job: IntentJob) => Promise<IntentJobResult>;
}

/** The consumer side: `evsync worker`. */
export function startIntentWorker(options: IntentWorkerOptions): Worker<IntentJob, IntentJobResult> {
  return new Worker<IntentJob, IntentJobResult>(
    INTENT_QUEUE,
    (job: Job<IntentJob, IntentJobResult>) => options.handle(intentJobSchema.parse(job.data)),
    { connection: options.connection, prefix: options.prefix, concurrency: options.concurrency },
  );
}
