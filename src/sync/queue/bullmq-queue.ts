import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { concurrencyOf, QueueTally } from './queue-tally.js';
import type { QueueOptions, WorkQueue } from './work-queue.js';
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
class BullmqQueue<W, R> extends QueueTally<W, R> implements WorkQueue<W, R> {
  readonly adapter = 'bullmq';

  private readonly queue: Queue<Carried<W>, R>;
  private readonly worker: Worker<Carried<W>, R>;
  private readonly jobId: ((item: W) => string) | undefined;

  constructor(options: BullmqQueueOptions<W, R> & { concurrency: number }) {
    super();
    const { connection, prefix, name, handler } = options;
    this.jobId = options.jobId;
    this.queue = new Queue<Carried<W>, R>(name, { connection, prefix });
    this.worker = new Worker<Carried<W>, R>(
      name,
      async (job: Job<Carried<W>, R>): Promise<R> => {
        this.active += 1;
        try {
          return await handler(job.data.item);
        } finally {
          this.active -= 1;
        }
      },
      // A handler's failure is the engine's to judge: one try, as in the inline queue.
      { connection, prefix, concurrency: options.concurrency },
    );
    this.worker.on('completed', (job, result) => this.succeeded(job.data.item, result));
    this.worker.on('failed', (job, error) => {
      if (job !== undefined) this.threw(job.data.item, error);
    });
  }

  ready(): Promise<unknown> {
    return this.worker.waitUntilReady();
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
}

export async function createBullmqQueue<W, R>(options: BullmqQueueOptions<W, R>): Promise<WorkQueue<W, R>> {
  const adapter = new BullmqQueue({ ...options, concurrency: concurrencyOf(options) });
  await adapter.ready();
  return adapter;
}
