import { CODE } from '../errors/codes.js';
import { messageOf } from '../errors/evsync-error.js';
import type { IntentResultInput } from '../model/result-records.js';
import { LedgerError } from './ledger-error.js';

export interface ResultWriterOptions {
  /** Rows per multi-row INSERT. @defaultValue 1000 */
  batchSize?: number;
  /** A partial batch is flushed after this long. @defaultValue 250 */
  flushIntervalMs?: number;
  /** Waits before each new attempt of a failed batch; then the writer fails. @defaultValue [200, 1000] */
  retryDelaysMs?: readonly number[];
  /**
   * Called with each batch once the ledger holds it: a run's id cache may then forget the
   * ids that batch carries, and read them back from the ledger (sync/processors/id-cache.ts).
   */
  onRecorded?: (results: readonly IntentResultInput[]) => void;
}

/**
 * Buffers results and writes them in batches. `write` is cheap: it only waits when the
 * buffer is full. A failed background flush is rethrown by the next `write`, `flush` or
 * `close`. Results still buffered at a `kill -9` are lost; `resume` re-sends those intents,
 * which is safe because processors are idempotent.
 */
export interface ResultWriter {
  write(result: IntentResultInput): Promise<void>;
  flush(): Promise<void>;
  /** Flushes and stops the timer; writing after close throws. */
  close(): Promise<void>;
  /** Results buffered and not yet written. */
  readonly buffered: number;
  /** Results written to the ledger so far. */
  readonly written: number;
}

const RESOLVED: Promise<void> = Promise.resolve();

/**
 * Buffers results and writes them with `record` in batches of `batchSize`, or after
 * `flushIntervalMs` for a partial batch. One flush at a time, in order. `write` waits
 * only when a full batch is being written behind it (backpressure, bounded memory).
 */
export class BatchResultWriter implements ResultWriter {
  private buffer: IntentResultInput[] = [];
  private inFlight: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private failure: unknown;
  private closed = false;
  private writtenCount = 0;
  private lostCount = 0;
  private readonly batchSize: number;
  private readonly flushIntervalMs: number;
  private readonly retryDelaysMs: readonly number[];
  private readonly onRecorded: ((results: readonly IntentResultInput[]) => void) | undefined;

  constructor(
    private readonly record: (results: readonly IntentResultInput[]) => Promise<void>,
    options: ResultWriterOptions = {},
  ) {
    this.batchSize = Math.max(1, options.batchSize ?? 1000);
    this.flushIntervalMs = Math.max(1, options.flushIntervalMs ?? 250);
    this.retryDelaysMs = options.retryDelaysMs ?? [200, 1000];
    this.onRecorded = options.onRecorded;
  }

  get buffered(): number {
    return this.buffer.length;
  }

  get written(): number {
    return this.writtenCount;
  }

  write(result: IntentResultInput): Promise<void> {
    const unusable = this.unusable();
    if (unusable) return Promise.reject(unusable);
    this.buffer.push(result);
    if (this.buffer.length >= this.batchSize) return this.writeBehind();
    this.timer ??= setTimeout(() => void this.startFlush().catch(() => undefined), this.flushIntervalMs);
    // Not an async function: the common write, into a buffer with room, makes no promise of
    // its own (one per intent; docs/sync-engine.md, "CPU per call").
    return RESOLVED;
  }

  /** Keeps one batch in flight while the next one fills: waits for the one before it. */
  private async writeBehind(): Promise<void> {
    const previous = this.inFlight;
    void this.startFlush();
    await previous;
    this.throwIfFailed();
  }

  async flush(): Promise<void> {
    await this.startFlush();
    this.throwIfFailed();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
    } finally {
      this.closed = true;
      this.clearTimer();
    }
  }

  /** Chains a write of the current buffer after the previous one and waits for both. */
  private startFlush(): Promise<void> {
    this.clearTimer();
    if (this.buffer.length > 0) {
      const batch = this.buffer;
      this.buffer = [];
      this.inFlight = this.inFlight.then(async () => {
        if (this.failure !== undefined) {
          this.lostCount += batch.length;
          return;
        }
        try {
          await this.recordWithRetries(batch);
          this.writtenCount += batch.length;
          this.onRecorded?.(batch);
        } catch (error) {
          this.failure = error;
          this.lostCount += batch.length;
        }
      });
    }
    return this.inFlight;
  }

  /** A connection blip or a deadlock must not lose a batch: try again, a little later. */
  private async recordWithRetries(batch: readonly IntentResultInput[]): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await this.record(batch);
        return;
      } catch (error) {
        const delay = this.retryDelaysMs[attempt];
        if (delay === undefined) throw error;
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Why nothing more may be written: closed, or a batch failed. */
  private unusable(): LedgerError | undefined {
    if (this.closed) {
      return new LedgerError('The result writer was closed; open a new one with ledger.resultWriter().', {
        code: CODE.EVSYNC_LEDGER_CLOSED,
      });
    }
    return this.failed();
  }

  private failed(): LedgerError | undefined {
    if (this.failure === undefined) return undefined;
    return new LedgerError(
      `Recording results in the ledger failed; ${this.lostCount + this.buffer.length} results were not written: ${messageOf(
        this.failure,
      )}`,
      { code: CODE.EVSYNC_LEDGER_WRITE, retryable: true, cause: this.failure },
    );
  }

  private throwIfFailed(): void {
    const failed = this.failed();
    if (failed) throw failed;
  }
}
