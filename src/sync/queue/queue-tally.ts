import { EventEmitter } from 'node:events';
import type { QueueEventMap, QueueOptions, QueueStats } from './work-queue.js';

/** The options' concurrency, checked. @defaultValue 4 */
export function concurrencyOf(options: Pick<QueueOptions<unknown, unknown>, 'concurrency'>): number {
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`queue concurrency must be a whole number ≥ 1 (got ${concurrency})`);
  }
  return concurrency;
}

/**
 * What every queue adapter keeps of its own work: items outstanding (waiting or active),
 * counts, listeners, and who waits for it to be idle. Adapters say when an item starts,
 * ends or is dropped; `drain`, `stats` and `on` follow from that.
 */
export abstract class QueueTally<W, R> {
  private readonly emitter = new EventEmitter();
  /** Items accepted and neither handled nor dropped yet: waiting or active. */
  protected outstanding = 0;
  protected active = 0;
  private completed = 0;
  private failed = 0;
  protected isClosed = false;
  private idleWaiters: Array<() => void> = [];

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  get closed(): boolean {
    return this.isClosed;
  }

  drain(): Promise<void> {
    if (this.outstanding === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
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

  /** The handler of `item` resolved. */
  protected succeeded(item: W, result: R): void {
    this.completed += 1;
    this.emitter.emit('completed', item, result);
    this.settle();
  }

  /** The handler of `item` threw. */
  protected threw(item: W, error: unknown): void {
    this.failed += 1;
    this.emitter.emit('failed', item, error);
    this.settle();
  }

  /** One item is done with (handled or dropped). */
  protected settle(): void {
    this.outstanding = Math.max(0, this.outstanding - 1);
    this.wakeIfIdle();
  }

  protected wakeIfIdle(): void {
    if (this.outstanding > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    this.emitter.emit('drained');
    for (const resolve of waiters) resolve();
  }
}
