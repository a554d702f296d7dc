import { concurrencyOf, QueueTally } from './queue-tally.js';
import type { QueueOptions, WorkHandler, WorkQueue } from './work-queue.js';
import { QueueClosedError } from './work-queue.js';

/**
 * The embedded queue: in process, at most `concurrency` handlers at once, in enqueue order.
 * No Redis needed; the ledger alone makes an interrupted run resumable.
 *
 * The items wait in an array, not in p-limit (which this queue used before): p-limit made
 * a promise, a queue node and a bound function for every item when it was enqueued, and
 * three more promises when it ran, where this queue needs none of them (it settles every
 * item itself; docs/sync-engine.md, "CPU per call").
 */
export class InlineQueue<W, R> extends QueueTally<W, R> implements WorkQueue<W, R> {
  readonly adapter = 'inline';
  private readonly handler: WorkHandler<W, R>;
  private readonly concurrency: number;
  /** Items not started, from `head` on; the array is compacted as it is consumed. */
  private waitingItems: W[] = [];
  private head = 0;
  private running = 0;

  constructor(options: QueueOptions<W, R>) {
    super();
    this.handler = options.handler;
    this.concurrency = concurrencyOf(options);
  }

  enqueue(items: readonly W[]): Promise<void> {
    if (this.isClosed) return Promise.reject(new QueueClosedError());
    this.outstanding += items.length;
    for (const item of items) this.waitingItems.push(item);
    // Handlers start on a later microtask, as they did under p-limit: never inside `enqueue`.
    if (this.running < this.concurrency && items.length > 0) queueMicrotask(() => this.startMore());
    return Promise.resolve();
  }

  async close(): Promise<void> {
    this.isClosed = true;
    // Work not started is dropped here; the ledger still lists it as pending.
    this.outstanding -= this.waitingItems.length - this.head;
    this.waitingItems = [];
    this.head = 0;
    this.wakeIfIdle();
    await this.drain();
  }

  /** Starts waiting items while a slot is free. */
  private startMore(): void {
    while (this.running < this.concurrency && this.head < this.waitingItems.length) {
      const item = this.waitingItems[this.head]!;
      this.head += 1;
      if (this.head >= 1024 && this.head * 2 >= this.waitingItems.length) {
        this.waitingItems = this.waitingItems.slice(this.head);
        this.head = 0;
      }
      this.running += 1;
      void this.run(item);
    }
  }

  private async run(item: W): Promise<void> {
    let outcome: { ok: true; result: R } | { ok: false; error: unknown } | undefined;
    // An item handed out in the same turn as `close()` is dropped too.
    if (!this.isClosed) {
      this.active += 1;
      try {
        outcome = { ok: true, result: await this.handler(item) };
      } catch (error) {
        outcome = { ok: false, error };
      }
      this.active -= 1;
    }
    this.running -= 1;
    if (outcome === undefined) this.settle();
    else if (outcome.ok) this.succeeded(item, outcome.result);
    else this.threw(item, outcome.error);
    this.startMore();
  }
}

export function createInlineQueue<W, R>(options: QueueOptions<W, R>): WorkQueue<W, R> {
  return new InlineQueue(options);
}
