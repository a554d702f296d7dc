import { EventEmitter } from 'node:events';
import type { QueueEventMap, QueueOptions, QueueStats, WorkHandler, WorkQueue } from './work-queue.js';
import { QueueClosedError } from './work-queue.js';

/**
 * The embedded queue: in process, at most `concurrency` handlers at once, in enqueue order.
 * No Redis needed; the ledger alone makes an interrupted run resumable.
 */
export class InlineQueue<W, R> implements WorkQueue<W, R> {
  readonly adapter = 'inline';
  private readonly handler: WorkHandler<W, R>;
  private readonly concurrency: number;
  private readonly emitter = new EventEmitter();
  private waiting: W[] = [];
  private head = 0;
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
    this.concurrency = concurrency;
    this.emitter.setMaxListeners(0);
  }

  get closed(): boolean {
    return this.isClosed;
  }

  enqueue(items: readonly W[]): Promise<void> {
    if (this.isClosed) return Promise.reject(new QueueClosedError());
    for (const item of items) this.waiting.push(item);
    this.pump();
    return Promise.resolve();
  }

  drain(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.isClosed = true;
    // Work not started is dropped here; the ledger still lists it as pending.
    this.waiting = this.waiting.slice(this.head, this.head);
    this.head = 0;
    await this.drain();
  }

  stats(): QueueStats {
    return {
      waiting: this.waiting.length - this.head,
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

  private isIdle(): boolean {
    return this.active === 0 && (this.isClosed || this.head >= this.waiting.length);
  }

  private pump(): void {
    while (!this.isClosed && this.active < this.concurrency && this.head < this.waiting.length) {
      const item = this.waiting[this.head] as W;
      this.head += 1;
      this.active += 1;
      void this.run(item);
    }
    // Reclaim the consumed prefix now and then so a long run does not hold every item.
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
    if (this.isIdle()) this.settleIdle();
  }

  private async run(item: W): Promise<void> {
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
    this.pump();
  }

  private settleIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    this.emitter.emit('drained');
    for (const resolve of waiters) resolve();
  }
}

export function createInlineQueue<W, R>(options: QueueOptions<W, R>): WorkQueue<W, R> {
  return new InlineQueue(options);
}
