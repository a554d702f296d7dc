import { EventEmitter } from 'node:events';
import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { QueueEventMap, QueueOptions, QueueStats, WorkHandler, WorkQueue } from './work-queue.js';
import { QueueClosedError } from './work-queue.js';

export interface BullmqQueueOptions<W, R> extends QueueOptions<W, R> {
  /** Workers need `maxRetriesPerRequest: null` on it (BullMQ blocks on Redis). */
  connection: Redis;
  /** BullMQ's key prefix: `EVSYNC_QUEUE_PREFIX`. */
  prefix: string;
  /** The queue's name; one adapter owns it (its waiting jobs are dropped on `close`). */
  name: string;
  /** A job id per item: BullMQ adds an item whose id it holds only once. */
  jobId?: (item: W) => string;
}

interface Carried<W> {
  item: W;
}

/**
 * The engine's queue on BullMQ, producer and worker in this process: items travel through
 * Redis (JSON), at most `concurrency` handlers run at once, in enqueue order when it is 1.
 * It passes the conformance suite the inline queue passes. Distributed mode splits the
 * two halves across processes instead (docs/distributed.md), and keeps the ledger, not
 * these counters, as the truth of what is done.
 */
class BullmqQueue<W, R> implements WorkQueue<W, R> {
  readonly adapter = 'bullmq';
  private readonly emitter = new EventEmitter();
  private outstanding = 0;
  private active = 0;
  private completed = 0;
  private failed = 0;
  private isClosed = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly queue: Queue<Carried<W>, R>,
    private readonly worker: Worker<Carried<W>, R>,
    private readonly jobId: ((item: W) => string) | undefined,
  ) {
    this.emitter.setMaxListeners(0);
    worker.on('completed', (job, result) => {
      this.completed += 1;
      this.emitter.emit('completed', job.data.item, result);
      this.settle();
    });
    worker.on('failed', (job, error) => {
      if (job === undefined) return;
      this.failed += 1;
      this.emitter.emit('failed', job.data.item, error);
      this.settle();
    });
  }

  get closed(): boolean {
    return this.isClosed;
  }

  async enqueue(items: readonly W[]): Promise<void> {
    if (this.isClosed) throw new QueueClosedError();
    this.outstanding += items.length;
    await this.queue.addBulk(
      items.map((item) => ({
        name: 'item',
        data: { item },
        opts: {
          ...(this.jobId ? { jobId: this.jobId(item) } : {}),
          removeOnComplete: true,
          removeOnFail: true,
        },
      })),
    );
  }

  drain(): Promise<void> {
    if (this.outstanding === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    if (this.isClosed) return this.drain();
    this.isClosed = true;
    // Finishes the handlers in flight and takes no more.
    await this.worker.close();
    // Work not started is dropped with the queue, which only this adapter used.
    await this.queue.obliterate({ force: true });
    await this.queue.close();
    this.outstanding = this.active;
    this.wakeIfIdle();
  }

  stats(): QueueStats {
    return {
      waiting: this.outstanding - this.active,
      active: this.active,
      completed: this.completed,
      failed: this.failed,
    };
  }

  on<E extends keyof QueueEventMap<W, R>>(
    event: E,
    listener: (...args: QueueEventMap<W, R>[E]) => void,
  ): () => void {
    const untyped = listener as (...args: unknown[]) => void;
    this.emitter.on(event, untyped);
    return () => this.emitter.off(event, untyped);
  }

  /** The worker's processor: counts the handler as active while it runs. */
  static processor<W, R>(handler: WorkHandler<W, R>, owner: () => BullmqQueue<W, R> | undefined) {
    return async (job: Job<Carried<W>, R>): Promise<R> => {
      const queue = owner();
      if (queue) queue.active += 1;
      try {
        return await handler(job.data.item);
      } finally {
        if (queue) queue.active -= 1;
      }
    };
  }

  private settle(): void {
    this.outstanding = Math.max(0, this.outstanding - 1);
    this.wakeIfIdle();
  }

  private wakeIfIdle(): void {
    if (this.outstanding > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    this.emitter.emit('drained');
    for (const resolve of waiters) resolve();
  }
}

export async function createBullmqQueue<W, R>(options: BullmqQueueOptions<W, R>): Promise<WorkQueue<W, R>> {
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`queue concurrency must be a whole number ≥ 1 (got ${concurrency})`);
  }
  const { connection, prefix, name } = options;
  const queue = new Queue<Carried<W>, R>(name, { connection, prefix });
  let adapter: BullmqQueue<W, R> | undefined;
  const worker = new Worker<Carried<W>, R>(
    name,
    BullmqQueue.processor(options.handler, () => adapter),
    // A handler's failure is the engine's to judge: one try, as in the inline queue.
    { connection, prefix, concurrency },
  );
  adapter = new BullmqQueue(queue, worker, options.jobId);
  await worker.waitUntilReady();
  return adapter;
}
