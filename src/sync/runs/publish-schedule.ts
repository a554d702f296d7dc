import type { SyncedHashes } from '../plan/synced-hashes.js';

/**
 * Chunks a streamed plan's reader reads on, without waiting for their plans, once a plan has
 * started to read a kind's synced hashes (`SyncedHashes`): that read (1.2 s of a 200,000-user
 * night) held the reader still, one core idle, until it ended. The rows read meanwhile are
 * mapped as before the read (docs/sync-engine.md, "Memory").
 */
export const READ_AHEAD_CHUNKS = 16;

/**
 * When the reader publishes the synced hashes read (`SyncedHashes.publish`), boundary by
 * boundary between chunks: at once, or {@link READ_AHEAD_CHUNKS} chunks after a read has
 * started. It depends on the chunks alone, so that which rows skip the checks depends on the
 * sources alone; a run and `evsync plan` follow the same schedule.
 */
export class PublishSchedule {
  private ahead = 0;
  /** The reads started when the reader last read ahead. */
  private aheadOf = 0;

  constructor(private readonly synced: SyncedHashes) {}

  /** Whether the reader is reading ahead of the plans (its chunks then stay small). */
  get readingAhead(): boolean {
    return this.ahead > 0;
  }

  /**
   * At a boundary: whether the reader passes it without waiting for the plans before it (one
   * of the chunks it reads ahead; {@link readingAhead} only asks).
   */
  passesAhead(): boolean {
    if (this.ahead === 0) return false;
    this.ahead--;
    return true;
  }

  /** Once the chunks before the boundary are planned: publishes, or starts reading ahead. */
  async planned(): Promise<void> {
    const reads = this.synced.reads();
    if (reads.started > reads.published && reads.started !== this.aheadOf) {
      this.ahead = READ_AHEAD_CHUNKS;
      this.aheadOf = reads.started;
      return;
    }
    // From the next row on, the mapping finds synced rows by the tails read so far.
    await this.synced.publish();
  }
}
