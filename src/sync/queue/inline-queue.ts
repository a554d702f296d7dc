import { EventEmitter } from 'node:events';
import pLimit, { type LimitFunction } from 'p-limit';
import type { QueueEventMap, QueueOptions, QueueStats, WorkHandler, WorkQueue } from './work-queue.js';
import { QueueClosedError } from './work-queue.js';

/**
 * The embedded queue: in process, at most `concurrency` handlers at once (bounded by
 * p-limit), in enqueue order. No Redis needed; the ledger alone makes an interrupted run
 * resumable.
 */
export class InlineQueue<W, R> implements WorkQueue<W, R> {
  readonly adapter = 'inline';
  private readonly handler: WorkHandler<W, R>;
  private readonly limit: LimitFunction;
  private readonly emitter = new EventEmitter();
  /** Items accepted and neither handled nor dropped yet: waiting or active. */
  private outstanding = 0;
  private active = 0;
  private completed = 0;
  private failed = 0;
  private isClosed = false;
  private idleWaiters: Array<() => void> = [];

  constructor(options: QueueOptions<W, R>) {
    const concurrency = options.concurrency ?? 4;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError(`queue concurrency must be a whole number ≥ 1 (got ${concurrency})`);
    }
    this.handler = options.handler;
    this.limit = pLimit(concurrency);
    this.emitter.setMaxListeners(0);
  }

  get closed(): boolean {
    return this.isClosed;
  }

  enqueue(items: readonly W[]): Promise<void> {
    if (this.isClosed) return Promise.reject(new QueueClosedError());
    this.outstanding += items.length;
    // The limiter's promises are not awaited: `run` settles every item itself, never throws.
    for (const item of items) void this.limit(() => this.run(item));
    return Promise.resolve();
  }

  drain(): Promise<void> {
    if (this.outstanding === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.isClosed = true;
    // Work not started is dropped here; the ledger still lists it as pending.
    this.outstanding -= this.limit.pendingCount;
    this.limit.clearQueue();
    this.wakeIfIdle();
    await this.drain();
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
    if (outcome.ok) {
      this.completed += 1;
      this.emitter.emit('completed', item, outcome.result);
    } else {
      this.failed += 1;
      this.emitter.emit('failed', item, outcome.error);
    }
    this.settle();
  }

  /** One item is done with (handled or dropped). */
  private settle(): void {
    this.outstanding -= 1;
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

export function createInlineQueue<W, R>(options: QueueOptions<W, R>): WorkQueue<W, R> {
  return new InlineQueue(options);
}
