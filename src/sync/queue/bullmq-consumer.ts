import { EventEmitter } from 'node:events';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { messageOf } from '../../errors/evsync-error.js';
import { checkTarget, type BullmqTarget, type CarriedItem } from './bullmq-target.js';
import { RateLimited, RetryLater } from './job-outcomes.js';
import { concurrencyOf } from './queue-tally.js';
import { backoffStrategy, retryPolicyOf, type RetryPolicy } from './retry-policy.js';
import { openRedis } from './redis-connection.js';
import type { WorkHandler } from './work-queue.js';

export interface BullmqConsumerOptions<W, R> extends BullmqTarget {
  handler: WorkHandler<W, R>;
  /** Handlers running at once in this process. @defaultValue 4 */
  concurrency?: number;
  /** The waits between tries of a job whose handler throws `RetryLater` (the tries are the producer's). */
  retry?: Partial<RetryPolicy>;
  /**
   * Starts of one job in all, rate-limited ones included, before it fails: bounds a job
   * the platform refuses with 429 for ever. @defaultValue 50
   */
  maxStartedAttempts?: number;
  /** Stored on each job this process takes (e.g. `host:pid`). */
  workerName?: string;
}

export interface ConsumerEventMap<W, R> {
  completed: [item: W, result: R];
  /** The job failed for good: a permanent or unknown error, or its tries or starts ran out. */
  failed: [item: W, error: unknown, starts: number];
  /** The handler threw `RateLimited`: the whole queue pauses for `waitMs`. */
  'rate-limited': [item: W, waitMs: number];
  /** Trouble with Redis; BullMQ reconnects by itself. */
  error: [error: Error];
}

const DEFAULT_MAX_STARTED_ATTEMPTS = 50;

/** What a handler's error makes of the job, for BullMQ. */
class GiveUp extends UnrecoverableError {
  constructor(readonly original: unknown) {
    super(messageOf(original));
    // BullMQ tells an unrecoverable error by its name as well as its class.
    this.name = 'UnrecoverableError';
  }
}

/**
 * The half of the BullMQ queue that handles jobs: a BullMQ Worker running `handler` on up
 * to `concurrency` items at once. What the handler throws decides the job's fate
 * (`job-outcomes.ts`): `RetryLater` is tried again with backoff, `RateLimited` pauses the
 * queue for every worker and goes back to wait without spending an attempt, anything else
 * fails the job at once (`UnrecoverableError`). `close` lets the jobs in flight finish and
 * takes no more.
 */
export class BullmqConsumer<W, R> {
  readonly worker: Worker<CarriedItem<W>, R>;
  private readonly queue: Queue<CarriedItem<W>, R>;
  private readonly emitter = new EventEmitter();
  private closing: Promise<void> | undefined;

  private constructor(
    options: BullmqConsumerOptions<W, R>,
    private readonly connection: Redis,
  ) {
    const { name, prefix, handler } = options;
    const retry: RetryPolicy = retryPolicyOf(options.retry);
    this.emitter.setMaxListeners(0);
    // Only for `rateLimit`: a Queue shares the worker's connection and blocks on nothing.
    this.queue = new Queue<CarriedItem<W>, R>(name, { connection, prefix });
    this.worker = new Worker<CarriedItem<W>, R>(
      name,
      async (job: Job<CarriedItem<W>, R>) => {
        try {
          return await handler(job.data.item);
        } catch (error) {
          throw await this.verdictOn(job.data.item, error);
        }
      },
      {
        connection,
        prefix,
        concurrency: concurrencyOf(options),
        maxStartedAttempts: options.maxStartedAttempts ?? DEFAULT_MAX_STARTED_ATTEMPTS,
        settings: { backoffStrategy: backoffStrategy(retry) },
        ...(options.workerName === undefined ? {} : { name: options.workerName }),
      },
    );
    this.worker.on('completed', (job, result) => this.emitter.emit('completed', job.data.item, result));
    this.worker.on('failed', (job, error) => {
      if (job === undefined) return;
      const final = error.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
      if (final)
        this.emitter.emit(
          'failed',
          job.data.item,
          error instanceof GiveUp ? error.original : error,
          job.attemptsStarted,
        );
    });
    this.worker.on('error', (error) => {
      if (this.emitter.listenerCount('error') > 0) this.emitter.emit('error', error);
    });
  }

  /** Connects (a `QueueConnectionError` if Redis cannot be reached) and starts taking jobs. */
  static async start<W, R>(options: BullmqConsumerOptions<W, R>): Promise<BullmqConsumer<W, R>> {
    checkTarget(options);
    const connection = await openRedis(options.redisUrl, 'worker');
    try {
      const consumer = new BullmqConsumer<W, R>(options, connection);
      await consumer.worker.waitUntilReady();
      return consumer;
    } catch (error) {
      connection.disconnect();
      throw error;
    }
  }

  get closed(): boolean {
    return this.closing !== undefined;
  }

  on<E extends keyof ConsumerEventMap<W, R>>(
    event: E,
    listener: (...args: ConsumerEventMap<W, R>[E]) => void,
  ): () => void {
    const untyped = listener as (...args: unknown[]) => void;
    this.emitter.on(event, untyped);
    return () => this.emitter.off(event, untyped);
  }

  /** Takes no more jobs and waits for those in flight. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.worker.close();
      await this.queue.close();
      this.connection.disconnect();
    })();
    return this.closing;
  }

  private async verdictOn(item: W, error: unknown): Promise<Error> {
    if (error instanceof RateLimited) {
      // Every worker stops taking jobs for the pause; this one goes back unharmed.
      await this.queue.rateLimit(error.waitMs);
      this.emitter.emit('rate-limited', item, error.waitMs);
      return Worker.RateLimitError();
    }
    if (error instanceof RetryLater) return error;
    return new GiveUp(error);
  }
}
