import { jobIdFor } from '../sync/queue/job-id.js';
import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { notePickup } from '../metrics/process-metrics.js';
import {
  JobRefused,
  IntentRateLimited,
  WORKER_NAME,
  intentJobSchema,
  type IntentJob,
  type IntentJobResult,
} from './intent-job.js';
import type { IntentJobSink, RunPhaseNote } from './distributed-executor.js';
import { reportQueueErrors } from './queue-errors.js';
import { SHARED_QUEUE } from './lanes.js';

/** The key of a run's phase note: gone a day after its last change. */
const phaseKey = (prefix: string, runId: string): string => `${prefix}:evsync-phase:${runId}`;
const PHASE_NOTE_TTL_S = 24 * 3600;

/** Jobs added per `addBulk` call: one round trip each, bounded memory for big phases. */
const ENQUEUE_CHUNK = 1000;
/** `addBulk` calls in flight at once. */
const ENQUEUE_LANES = 4;

/**
 * Finished jobs kept in Redis, by age and count: the ledger keeps history, Redis only
 * carries the work (docs/distributed.md).
 */
const REMOVE_ON_COMPLETE = { age: 3600, count: 10_000 };
const REMOVE_ON_FAIL = { age: 24 * 3600, count: 10_000 };

/** The BullMQ job id of an intent of one coordinator's pass (see `jobIdFor`). */
export function intentJobId(job: IntentJob): string {
  return jobIdFor(`${job.runId}-${job.epoch}`, job.kind, job.key);
}

/** The producer side: `evsync run`, `resume` and `retry` enqueue through it. */
export class IntentQueue implements IntentJobSink {
  readonly queue: Queue<IntentJob, IntentJobResult>;

  constructor(
    private readonly connection: Redis,
    private readonly prefix: string,
    /** A lane's queue (`laneQueueName`), or the shared queue of releases before lanes. */
    readonly name: string = SHARED_QUEUE,
  ) {
    this.queue = new Queue<IntentJob, IntentJobResult>(name, { connection, prefix });
    reportQueueErrors(this.queue, 'intent queue');
  }

  async notePhase(runId: string, note: RunPhaseNote): Promise<void> {
    await this.connection.set(phaseKey(this.prefix, runId), JSON.stringify(note), 'EX', PHASE_NOTE_TTL_S);
  }

  /** The phase notes of runs in progress (and of those ended within a day), by run id. */
  async phaseNotes(): Promise<Map<string, RunPhaseNote>> {
    const notes = new Map<string, RunPhaseNote>();
    const pattern = phaseKey(this.prefix, '*');
    let cursor = '0';
    do {
      const [next, keys] = await this.connection.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      for (const key of keys) {
        const text = await this.connection.get(key);
        if (text !== null) notes.set(key.slice(pattern.length - 1), JSON.parse(text) as RunPhaseNote);
      }
    } while (cursor !== '0');
    return notes;
  }

  async enqueue(jobs: readonly IntentJob[]): Promise<void> {
    // A few chunks in flight at once: Redis runs one script at a time, but the round trips
    // and the encoding overlap.
    const chunks: IntentJob[][] = [];
    for (let start = 0; start < jobs.length; start += ENQUEUE_CHUNK)
      chunks.push(jobs.slice(start, start + ENQUEUE_CHUNK));
    const next = (): IntentJob[] | undefined => chunks.shift();
    const lane = async (): Promise<void> => {
      for (let chunk = next(); chunk !== undefined; chunk = next()) await this.addChunk(chunk);
    };
    await Promise.all(Array.from({ length: ENQUEUE_LANES }, lane));
  }

  private async addChunk(jobs: readonly IntentJob[]): Promise<void> {
    await this.queue.addBulk(
      jobs.map((data) => ({
        name: data.kind,
        data,
        opts: {
          jobId: intentJobId(data),
          removeOnComplete: REMOVE_ON_COMPLETE,
          removeOnFail: REMOVE_ON_FAIL,
          attempts: ATTEMPTS,
          backoff: { type: 'exponential', delay: 1000, jitter: 0.5 },
        },
      })),
    );
  }

  async withdrawRun(runId: string): Promise<number> {
    let removed = 0;
    // Pages from the end, so that removals do not shift the pages still to read.
    const types = ['waiting', 'delayed', 'prioritized'] as const;
    const total = Object.values(await this.queue.getJobCounts(...types)).reduce((a, b) => a + b, 0);
    for (let end = total - 1; end >= 0; end -= ENQUEUE_CHUNK) {
      const page = await this.queue.getJobs([...types], Math.max(0, end - ENQUEUE_CHUNK + 1), end);
      const mine = page.filter((job) => job?.data?.runId === runId && job.id !== undefined);
      await Promise.all(mine.map((job) => this.queue.remove(job.id!).catch(() => 0)));
      removed += mine.length;
    }
    return removed;
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

  async activeOf(runId: string): Promise<number> {
    // As many as the queue's global concurrency: a short list.
    const active = await this.queue.getJobs(['active']);
    return active.filter((job) => job?.data?.runId === runId).length;
  }

  async workers(): Promise<number> {
    return (await this.queue.getWorkers()).length;
  }

  /**
   * The queue's global limits: `perSecond` jobs started a second (a job's `rate.per_second`)
   * and, when given, `concurrency` intents in flight on all workers (its `rate.concurrency`).
   */
  async setLimits(perSecond: number, concurrency?: number): Promise<void> {
    if (concurrency !== undefined) await this.queue.setGlobalConcurrency(concurrency);
    await this.queue.setGlobalRateLimit(perSecond, 1000);
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}

/** Tries of a job that failed (the ledger or Redis was down under the worker). */
const ATTEMPTS = 5;
/** How long a job refused for its conference waits before a worker may take it again. */
const REFUSED_DELAY_MS = 500;
/** Starts of a job in all, rate-limited ones included: bounds a job the platform always refuses with 429. */
const MAX_STARTED_ATTEMPTS = 50;

export interface IntentWorkerOptions {
  connection: Redis;
  prefix: string;
  /** The queue to take jobs from: a lane's, or the shared one. @defaultValue the shared queue */
  queueName?: string;
  concurrency: number;
  /** `holdsLock` tells whether this worker still holds the job's lock (`writeCheck` asks it before each write). */
  handle: (job: IntentJob, holdsLock: () => Promise<boolean>) => Promise<IntentJobResult>;
  /** A job the queue gives up on, with its last error and how often it was started. */
  gaveUp: (job: IntentJob, error: unknown, tries: number) => Promise<void>;
}

/** The consumer side: `evsync worker`. */
export function startIntentWorker(options: IntentWorkerOptions): Worker<IntentJob, IntentJobResult> {
  const queueName = options.queueName ?? SHARED_QUEUE;
  const worker: Worker<IntentJob, IntentJobResult> = new Worker<IntentJob, IntentJobResult>(
    queueName,
    async (job: Job<IntentJob, IntentJobResult>, token?: string) => {
      const parsed = intentJobSchema.safeParse(job.data);
      // Not a job evsync wrote: nothing to send, and no try will make it one.
      if (!parsed.success) throw new UnrecoverableError(`not an intent job: ${parsed.error.message}`);
      let refused = false;
      try {
        // BullMQ keeps a job's lock at `<job key>:lock`, its value the holder's token.
        const lockKey = `${options.prefix}:${queueName}:${job.id ?? ''}:lock`;
        const holdsLock = async (): Promise<boolean> =>
          token !== undefined && (await options.connection.get(lockKey)) === token;
        return await options.handle(parsed.data, holdsLock);
      } catch (error) {
        if (error instanceof JobRefused && token !== undefined) {
          refused = true;
          // Back to the queue a moment later, for a worker that can sign for its conference;
          // without counting a failed try. A job no worker takes ends at MAX_STARTED_ATTEMPTS.
          await job.moveToDelayed(Date.now() + REFUSED_DELAY_MS + Math.floor(Math.random() * 500), token);
          throw new DelayedError();
        }
        if (!(error instanceof IntentRateLimited)) throw error;
        // Every worker stops taking jobs for the pause; this one goes back unharmed.
        await worker.rateLimit(error.waitMs);
        throw Worker.RateLimitError();
      } finally {
        notePickup(refused ? 'refused' : 'taken');
      }
    },
    {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency,
      // A killed worker's jobs go to another within seconds; a live one renews its lock
      // every 5 s, and an intent takes far less than that between two renewals.
      lockDuration: 10_000,
      stalledInterval: 5_000,
      maxStalledCount: 5,
      maxStartedAttempts: MAX_STARTED_ATTEMPTS,
      // `evsync status` lists workers by it.
      name: WORKER_NAME,
    },
  );
  worker.on('failed', (job, error) => {
    if (job === undefined) return;
    const parsed = intentJobSchema.safeParse(job.data);
    const final = error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    if (parsed.success && final)
      void options.gaveUp(parsed.data, error, job.attemptsStarted).catch(() => undefined);
  });
  return worker;
}
