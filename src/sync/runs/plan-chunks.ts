import type { Intent } from '../../model/intent.js';
import type { RowResult } from '../plan/sync-plan.js';

/** Rows per chunk of a streamed plan, and planned intents per ledger statement. */
export const PLAN_CHUNK = 1000;
/**
 * The first chunk is smaller: nothing is sent until it is recorded, and 1,000 rows took
 * 50–120 ms on the embedded ledger, against a few milliseconds for this many.
 */
export const FIRST_PLAN_CHUNK = 100;

/**
 * Intents per chunk at most when the mapping found most of them synced (`Intent.knownHash`):
 * those cost the plan a compare and a key in one statement, so a chunk counts only the
 * others toward {@link PLAN_CHUNK}. A night that changed 1 % of 200,000 rows made 199
 * chunks of seven round trips each.
 */
const SYNCED_CHUNK = 10 * PLAN_CHUNK;

/** A chunk read: its intents and the results of its rows that send nothing. */
export interface ReadChunk {
  intents: Intent[];
  rows: RowResult[];
}

/**
 * The chunk being read, and where it ends: a run and `evsync plan` cut their chunks by this
 * one rule, so that they publish the synced hashes read at the same row (`PublishSchedule`)
 * and check the same rows.
 */
export class ChunkBeingRead {
  private intents: Intent[] = [];
  private rows: RowResult[] = [];
  /** The chunk's intents that the mapping did not find synced. */
  private sized = 0;
  private limit = FIRST_PLAN_CHUNK;

  add(read: { readonly intents: readonly Intent[]; readonly rowResults: readonly RowResult[] }): void {
    for (const intent of read.intents) {
      this.intents.push(intent);
      if (intent.knownHash === undefined) this.sized++;
    }
    for (const row of read.rowResults) this.rows.push(row);
  }

  /** Whether the chunk is full. While the reader reads ahead, chunks stay small: memory holds 17 at most. */
  full(readingAhead: boolean): boolean {
    const most = readingAhead ? PLAN_CHUNK : SYNCED_CHUNK;
    return this.sized >= this.limit || this.intents.length >= most || this.rows.length >= PLAN_CHUNK;
  }

  /** The chunk read, if it has anything; the next one starts empty. */
  take(): ReadChunk | undefined {
    const chunk =
      this.intents.length > 0 || this.rows.length > 0
        ? { intents: this.intents, rows: this.rows }
        : undefined;
    this.intents = [];
    this.rows = [];
    this.sized = 0;
    this.limit = PLAN_CHUNK;
    return chunk;
  }
}
