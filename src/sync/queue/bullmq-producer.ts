import { randomBytes } from 'node:crypto';
import { Queue, QueueEvents, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { BACKOFF_TYPE, retryPolicyOf, type RetryPolicy } from './retry-policy.js';
import {
  checkTarget,
  DEFAULT_REMOVAL,
  type BullmqTarget,
  type CarriedItem,
  type RemovalPolicy,
} from './bullmq-target.js';
import { QueueTally } from './queue-tally.js';
import { connectionErrorOf, openRedis } from './redis-connection.js';
import { QueueClosedError, type WorkQueue } from './work-queue.js';

/** The queue's limits for all workers together; they live in Redis, not in any worker. */
export interface QueueLimits {
  /** Jobs started per `durationMs` across every worker (BullMQ's global rate limit). */
  rate?: { max: number; durationMs: number };
  /** Jobs in flight across every worker (BullMQ's global concurrency). */
  globalConcurrency?: number;
}

export interface BullmqProducerOptions<W> extends BullmqTarget, QueueLimits {
  /** A job id per item (`jobIdFor`): an id still in Redis is added once. Unique ids otherwise. */
  jobId?: (item: W) => string;
  /** Tries of a job whose handler throws `RetryLater`, and the first wait. */
  retry?: Partial<RetryPolicy>;
  removal?: Partial<RemovalPolicy>;
  /** How long without news of this producer's jobs before it asks Redis how they are. @defaultValue 1000 */
  checkEveryMs?: number;
}

/** A job of this producer failed for good; `message` is its failed reason. */
export class JobFailedError extends Error {
  override readonly name = 'JobFailedError';
  constructor(
    readonly jobId: string,
    reason: string | undefined,
  ) {
    super(reason ?? `job ${jobId} failed`);
  }
}

/** Jobs per `addBulk` call: one round trip each, bounded memory for big phases. */
const ENQUEUE_CHUNK = 1000;
/** `addBulk` calls in flight at once: Redis runs one script at a time, the round trips overlap. */
const ENQUEUE_LANES = 4;
/** Jobs asked about per check: the oldest, the likeliest to have finished unseen. */
const CHECK_BATCH = 500;
/** Checks in a row that fail before `drain` gives up on Redis. */
const CHECK_FAILURES_TOLERATED = 3;

type Outcome<R> = { ok: true; result: R } | { ok: false; error: Error } | undefined;

/**
 * The half of the BullMQ queue that enqueues, for a process whose jobs other processes
 * handle (`BullmqConsumer`). It is a `WorkQueue` of its own jobs only: `drain` waits for
 * every job this producer added, whoever handles it, so several runs on one queue never
 * wait on each other. It follows them by QueueEvents, and asks Redis about the oldest
 * when no news came for `checkEveryMs`, so a missed event never leaves `drain` hanging;
 * a job gone from Redis (removed, or Redis lost it) ends the wait too, counted in
 * `unseen`: the ledger, not the queue, knows what was done.
 *
 * `close` stops following: the jobs stay in Redis for the workers (`withdraw` removes
 * those not started).
 */
export class BullmqProducer<W, R> extends QueueTally<W, R> implements WorkQueue<W, R> {
  readonly adapter = 'bullmq';
  readonly queue: Queue<CarriedItem<W>, R>;
  private readonly events: QueueEvents;
  /** This producer's jobs not seen finished, by id, with their items (in enqueue order). */
  private readonly pending = new Map<string, W>();
  private readonly activeIds = new Set<string>();
  private readonly jobOptions: JobsOptions;
  private readonly jobId: (item: W) => string;
  private readonly checkEveryMs: number;
  private readonly timer: NodeJS.Timeout;
  private lastNewsAt = Date.now();
  private checking = false;
  private checkFailures = 0;
  private lostWith: Error | undefined;
  private readonly lostWaiters = new Set<(error: Error) => void>();
  private finishedUnseen = 0;

  private constructor(
    private readonly options: BullmqProducerOptions<W>,
    private readonly connection: Redis,
    private readonly eventsConnection: Redis,
    lastEventId: string,
  ) {
    super();
    const { name, prefix } = options;
    const retry: RetryPolicy = retryPolicyOf(options.retry);
    const removal = { ...DEFAULT_REMOVAL, ...options.removal };
    this.jobOptions = {
      attempts: retry.attempts,
      backoff: { type: BACKOFF_TYPE, delay: retry.delayMs },
      removeOnComplete: removal.removeOnComplete,
      removeOnFail: removal.removeOnFail,
    };
    const ownIds = `p${randomBytes(6).toString('hex')}`;
    let count = 0;
    this.jobId = options.jobId ?? (() => `${ownIds}.${(count += 1)}`);
    this.checkEveryMs = options.checkEveryMs ?? 1000;
    this.queue = new Queue<CarriedItem<W>, R>(name, { connection, prefix });
    this.events = new QueueEvents(name, { connection: eventsConnection, prefix, lastEventId });
    this.events.on('error', () => undefined);
    this.events.on('active', ({ jobId }) => this.news(jobId, 'active'));
    this.events.on('waiting', ({ jobId }) => this.news(jobId, 'waiting'));
    this.events.on('delayed', ({ jobId }) => this.news(jobId, 'waiting'));
    this.events.on('completed', ({ jobId, returnvalue }) =>
      this.finish(jobId, { ok: true, result: returnvalue as R }),
    );
    this.events.on('failed', ({ jobId, failedReason }) =>
      this.finish(jobId, { ok: false, error: new JobFailedError(jobId, failedReason) }),
    );
    this.events.on('removed', ({ jobId }) => this.finish(jobId, undefined));
    this.timer = setInterval(() => void this.check(), Math.max(50, this.checkEveryMs / 2));
    this.timer.unref();
  }

  /** Connects (a `QueueConnectionError` if Redis cannot be reached) and sets the limits given. */
  static async open<W, R>(options: BullmqProducerOptions<W>): Promise<BullmqProducer<W, R>> {
    checkTarget(options);
    const connection = await openRedis(options.redisUrl, 'client');
    let eventsConnection: Redis | undefined;
    try {
      eventsConnection = await openRedis(options.redisUrl, 'blocking');
      // Events from now on, by Redis's clock: none of this producer's jobs is older.
      const [seconds, micros] = await connection.time();
      const lastEventId = `${Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)}-0`;
      const producer = new BullmqProducer<W, R>(options, connection, eventsConnection, lastEventId);
      await Promise.all([producer.queue.waitUntilReady(), producer.events.waitUntilReady()]);
      await producer.setLimits(options);
      return producer;
    } catch (error) {
      connection.disconnect();
      eventsConnection?.disconnect();
      throw error;
    }
  }

  /** This producer's jobs that ended without it seeing how (removed, or lost by Redis). */
  get unseen(): number {
    return this.finishedUnseen;
  }

  /** Sets the queue's limits for every worker; a limit not given stays as it is. */
  async setLimits(limits: QueueLimits): Promise<void> {
    if (limits.rate) await this.queue.setGlobalRateLimit(limits.rate.max, limits.rate.durationMs);
    if (limits.globalConcurrency !== undefined)
      await this.queue.setGlobalConcurrency(limits.globalConcurrency);
  }

  async enqueue(items: readonly W[]): Promise<void> {
    if (this.isClosed) throw new QueueClosedError();
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < items.length) {
        const chunk = items.slice(next, (next += ENQUEUE_CHUNK));
        await this.addChunk(chunk);
      }
    };
    await Promise.all(Array.from({ length: ENQUEUE_LANES }, lane));
  }

  private async addChunk(items: readonly W[]): Promise<void> {
    const jobs = items.map((item) => {
      const jobId = this.jobId(item);
      // Followed before it is added: its handler may finish before `addBulk` answers.
      if (!this.pending.has(jobId)) {
        this.pending.set(jobId, item);
        this.outstanding += 1;
      }
      return { name: this.options.name, data: { item }, opts: { ...this.jobOptions, jobId } };
    });
    try {
      await this.queue.addBulk(jobs);
    } catch (error) {
      // Jobs that did reach Redis are followed still; the others end at the next check.
      throw connectionErrorOf(this.connection, 'adding jobs', error);
    }
  }

  override drain(): Promise<void> {
    if (this.lostWith !== undefined) return Promise.reject(this.lostWith);
    return new Promise((resolve, reject) => {
      this.lostWaiters.add(reject);
      void super.drain().then(() => {
        this.lostWaiters.delete(reject);
        resolve();
      });
    });
  }

  /** Removes this producer's jobs that no worker has started; returns how many. */
  async withdraw(): Promise<number> {
    let removed = 0;
    const ids = [...this.pending.keys()].filter((id) => !this.activeIds.has(id));
    for (let start = 0; start < ids.length; start += ENQUEUE_CHUNK) {
      const page = ids.slice(start, start + ENQUEUE_CHUNK);
      // `remove` leaves a job a worker holds alone: that one finishes and is reported.
      const done = await Promise.all(page.map((id) => this.queue.remove(id).catch(() => 0)));
      page.forEach((id, index) => {
        if (done[index] !== 1) return;
        removed += 1;
        this.finish(id, undefined);
      });
    }
    return removed;
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    clearInterval(this.timer);
    // The jobs stay in Redis for the workers; this producer no longer waits for them.
    this.pending.clear();
    this.activeIds.clear();
    this.outstanding = 0;
    this.active = 0;
    this.wakeIfIdle();
    await Promise.allSettled([this.events.close(), this.queue.close()]);
    this.connection.disconnect();
    this.eventsConnection.disconnect();
  }

  private news(jobId: string, state: 'active' | 'waiting'): void {
    if (!this.pending.has(jobId)) return;
    this.lastNewsAt = Date.now();
    if (state === 'active' && !this.activeIds.has(jobId)) {
      this.activeIds.add(jobId);
      this.active += 1;
    } else if (state === 'waiting' && this.activeIds.delete(jobId)) {
      this.active -= 1;
    }
  }

  private finish(jobId: string, outcome: Outcome<R>): void {
    const item = this.pending.get(jobId);
    if (item === undefined && !this.pending.has(jobId)) return;
    this.lastNewsAt = Date.now();
    this.pending.delete(jobId);
    if (this.activeIds.delete(jobId)) this.active -= 1;
    if (outcome === undefined) {
      this.finishedUnseen += 1;
      this.settle();
    } else if (outcome.ok) this.succeeded(item as W, outcome.result);
    else this.threw(item as W, outcome.error);
  }

  /** Asks Redis about the oldest jobs not seen finished, when no news came for a while. */
  private async check(): Promise<void> {
    if (this.checking || this.pending.size === 0 || Date.now() - this.lastNewsAt < this.checkEveryMs) return;
    this.checking = true;
    try {
      const ids = [...this.oldestPending(CHECK_BATCH)];
      const states = await Promise.all(ids.map((id) => this.queue.getJobState(id)));
      await Promise.all(ids.map((id, index) => this.settleFromRedis(id, states[index])));
      this.checkFailures = 0;
    } catch (error) {
      this.checkFailures += 1;
      if (this.checkFailures >= CHECK_FAILURES_TOLERATED)
        this.lose(connectionErrorOf(this.connection, 'following jobs', error));
    } finally {
      this.checking = false;
      this.lastNewsAt = Math.max(this.lastNewsAt, Date.now() - this.checkEveryMs / 2);
    }
  }

  private *oldestPending(limit: number): Generator<string> {
    let taken = 0;
    for (const id of this.pending.keys()) {
      if (taken++ >= limit) return;
      yield id;
    }
  }

  private async settleFromRedis(jobId: string, state: string | undefined): Promise<void> {
    if (state === 'unknown') return this.finish(jobId, undefined);
    if (state !== 'completed' && state !== 'failed') return;
    const job = await this.queue.getJob(jobId);
    if (job === undefined) return this.finish(jobId, undefined);
    this.finish(
      jobId,
      state === 'completed'
        ? { ok: true, result: job.returnvalue }
        : { ok: false, error: new JobFailedError(jobId, job.failedReason) },
    );
  }

  private lose(error: Error): void {
    this.lostWith = error;
    for (const reject of this.lostWaiters) reject(error);
    this.lostWaiters.clear();
  }
}
