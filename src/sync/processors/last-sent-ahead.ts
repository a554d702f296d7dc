import type { Ledger } from '../../ledger/ledger.js';
import { KeyRegistry } from '../../mapping/key-registry.js';
import type { FlatParams } from '../../model/params.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { lastSentIn, type ProcessorContext } from './processor.js';

/**
 * {@link ProcessorContext.lastSent} for a streamed run, read ahead chunk by chunk: a chunk's
 * user updates (and their merged aliases) are read in one statement once the chunk is
 * planned, where each update asked the ledger alone when it was sent. A nightly run of
 * 200,000 users that changed 1 % made 2,000 such reads, one round trip each.
 *
 * A key is read ahead once per run, the first time a chunk plans it: a key planned again
 * (another step's row) may be sent by this run in between, and is read when it is sent,
 * as is any key not read ahead. A value read ahead is handed out once. The keys are
 * remembered as hashes (about 16 bytes each); a key taken for another by a hash collision
 * is only read when it is sent.
 */
export class LastSentAhead {
  private readonly ahead = new Map<string, Promise<FlatParams | undefined>>();
  private readonly readBefore = new KeyRegistry();
  private readonly readNow: NonNullable<ProcessorContext['lastSent']>;

  constructor(private readonly ledger: Pick<Ledger, 'syncedParams'>) {
    this.readNow = lastSentIn(ledger);
  }

  /** Reads what was last sent for these planned updates' users, not waiting for the answer. */
  readAhead(work: readonly PlannedIntent[]): void {
    const keys: string[] = [];
    for (const item of work) {
      if (item.kind !== 'user' || item.plannedAction !== 'update') continue;
      this.note(item.key, keys);
      for (const alias of item.aliases ?? []) this.note(alias, keys);
    }
    if (keys.length === 0) return;
    const read = this.ledger.syncedParams('user', keys);
    for (const key of keys) {
      const one = read.then((found) => found.get(key));
      // A failed read fails the update that asks for it, as its own read would; one never
      // asked for (the run stopped first) is no unhandled rejection.
      one.catch(() => undefined);
      this.ahead.set(key, one);
    }
  }

  readonly lastSent: NonNullable<ProcessorContext['lastSent']> = (key) => {
    const read = this.ahead.get(key);
    if (read === undefined) return this.readNow(key);
    this.ahead.delete(key);
    return read;
  };

  private note(key: string, keys: string[]): void {
    if (this.readBefore.add(key, 1) === undefined) keys.push(key);
  }
}
