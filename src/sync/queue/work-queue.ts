/**
 * The queue carries planned work to the processors (docs/design.md, "The flow of one run").
 * The engine sees only this interface; the inline queue is its adapter in one process, and
 * an adapter must pass `test/helpers/queue-conformance.ts`. Distributed mode does not put
 * the engine's queue on Redis: its coordinator enqueues intent jobs that workers in other
 * processes take (`src/distributed/intent-queue.ts`).
 *
 * The queue is transport only: the ledger decides what is still to do, so work that a
 * closed or crashed queue never started is found again by `evsync resume`.
 */
export type WorkHandler<W, R> = (item: W) => Promise<R>;

export interface QueueEventMap<W, R> {
  /** The handler resolved. */
  completed: [item: W, result: R];
  /** The handler threw: a bug or a broken run, never a per-row failure (those are results). */
  failed: [item: W, error: unknown];
  /** Nothing waiting and nothing active. */
  drained: [];
}

export interface QueueStats {
  waiting: number;
  active: number;
  completed: number;
  failed: number;
}

export interface WorkQueue<W, R> {
  /** The adapter's name, e.g. `inline`. */
  readonly adapter: string;
  /** Adds work; resolves once it is accepted (not processed). Rejects after `close()`. */
  enqueue(items: readonly W[]): Promise<void>;
  /** Resolves when everything enqueued so far has been handled, or, after `close()`, when nothing is active. */
  drain(): Promise<void>;
  /**
   * Stops starting new work and waits for the handlers in flight. Work not started stays
   * unhandled (the ledger has it as pending). Idempotent.
   */
  close(): Promise<void>;
  readonly closed: boolean;
  stats(): QueueStats;
  on<E extends keyof QueueEventMap<W, R>>(
    event: E,
    listener: (...args: QueueEventMap<W, R>[E]) => void,
  ): () => void;
}

export interface QueueOptions<W, R> {
  handler: WorkHandler<W, R>;
  /**
   * Handlers running at once. For platform work this is the job's `rate.concurrency`.
   * @defaultValue 4
   */
  concurrency?: number;
}

export class QueueClosedError extends Error {
  override readonly name = 'QueueClosedError';
  constructor() {
    super('The work queue is closed; no more work is accepted.');
  }
}
