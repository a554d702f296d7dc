import pLimit, { type LimitFunction } from 'p-limit';
import { concurrencyOf, QueueTally } from './queue-tally.js';
import type { QueueOptions, WorkHandler, WorkQueue } from './work-queue.js';
import { QueueClosedError } from './work-queue.js';

/**
 * The embedded queue: in process, at most `concurrency` handlers at once (bounded by
 * p-limit), in enqueue order. No Redis needed; the ledger alone makes an interrupted run
 * resumable.
 */
export class InlineQueue<W, R> extends QueueTally<W, R> implements WorkQueue<W, R> {
  readonly adapter = 'inline';
  private readonly handler: WorkHandler<W, R>;
  private readonly limit: LimitFunction;

  constructor(options: QueueOptions<W, R>) {
    super();
    this.handler = options.handler;
    this.limit = pLimit(concurrencyOf(options));
  }

  enqueue(items: readonly W[]): Promise<void> {
    if (this.isClosed) return Promise.reject(new QueueClosedError());
    this.outstanding += items.length;
    // The limiter's promises are not awaited: `run` settles every item itself, never throws.
    for (const item of items) void this.limit(() => this.run(item));
    return Promise.resolve();
  }

  async close(): Promise<void> {
    this.isClosed = true;
    // Work not started is dropped here; the ledger still lists it as pending.
    this.outstanding -= this.limit.pendingCount;
    this.limit.clearQueue();
    this.wakeIfIdle();
    await this.drain();
  }

  private async run(item: W): Promise<void> {
    // The limiter may hand out an item in the same turn as `close()`: it is dropped too.
    if (this.isClosed) return this.settle();
    this.active += 1;
    let outcome: { ok: true; result: R } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, result: await this.handler(item) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    this.active -= 1;
    if (outcome.ok) this.succeeded(item, outcome.result);
    else this.threw(item, outcome.error);
  }
}

export function createInlineQueue<W, R>(options: QueueOptions<W, R>): WorkQueue<W, R> {
  return new InlineQueue(options);
}
