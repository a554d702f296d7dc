import type { Ledger } from '../../ledger/ledger.js';
import { KeyRegistry } from '../../mapping/key-registry.js';
import type { FlatParams } from '../../model/params.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import {
  lastSentBeforeRemovalIn,
  lastSentIn,
  lastSentToAccounts,
  type ProcessorContext,
} from './processor.js';

type LastSentRead = NonNullable<ProcessorContext['lastSent']>;

/**
 * {@link ProcessorContext.lastSent} and {@link ProcessorContext.lastSentBeforeRemoval} for
 * a streamed run, read ahead chunk by chunk: a chunk's user updates (and their merged
 * aliases) and its user creates are read in one statement each once the chunk is planned,
 * where each asked the ledger alone when it was sent. A nightly run of 200,000 users that
 * changed 1 % made 2,000 such reads, one round trip each, and an import one per user.
 */
export class LastSentAhead {
  private readonly synced: ReadAhead;
  private readonly removed: ReadAhead;

  constructor(ledger: Pick<Ledger, 'syncedParams' | 'accountsLastSent' | 'removedKeysLastSent'>) {
    this.synced = new ReadAhead((keys) => lastSentToAccounts(ledger, keys), lastSentIn(ledger));
    this.removed = new ReadAhead(
      (keys) => ledger.removedKeysLastSent('user', keys),
      lastSentBeforeRemovalIn(ledger),
    );
  }

  /** Reads ahead for these planned users, not waiting for the answers. */
  readAhead(work: readonly PlannedIntent[]): void {
    const updates: string[] = [];
    const creates: string[] = [];
    for (const item of work) {
      if (item.kind !== 'user') continue;
      if (item.plannedAction === 'update') updates.push(item.key, ...(item.aliases ?? []));
      // A merged person's other keys too: each is checked before the create (`createUser`).
      else if (item.plannedAction === 'create') creates.push(item.key, ...(item.aliases ?? []));
    }
    this.synced.read(updates);
    this.removed.read(creates);
  }

  readonly lastSent: LastSentRead = (key) => this.synced.take(key);
  readonly lastSentBeforeRemoval: LastSentRead = (key) => this.removed.take(key);
}

/**
 * Params read ahead per key. A key is read ahead once per run, the first time a chunk plans
 * it: a key planned again (another step's row) may be sent by this run in between, and is
 * read when it is sent, as is any key not read ahead. A value read ahead is handed out once.
 * The keys are remembered as hashes (about 16 bytes each); a key taken for another by a hash
 * collision is only read when it is sent.
 */
class ReadAhead {
  /** Each key read ahead, with the chunk's read it is in: one promise a chunk, not one a key. */
  private readonly ahead = new Map<string, Promise<Map<string, FlatParams>>>();
  private readonly readBefore = new KeyRegistry();

  constructor(
    private readonly readMany: (keys: string[]) => Promise<Map<string, FlatParams>>,
    private readonly readNow: LastSentRead,
  ) {}

  read(asked: readonly string[]): void {
    const keys = asked.filter((key) => this.readBefore.add(key, 1) === undefined);
    if (keys.length === 0) return;
    const read = this.readMany(keys);
    // A failed read fails each row that asks for it, as its own read would; one never asked
    // for (the run stopped first) is no unhandled rejection.
    read.catch(() => undefined);
    for (const key of keys) this.ahead.set(key, read);
  }

  take(key: string): Promise<FlatParams | undefined> {
    const read = this.ahead.get(key);
    if (read === undefined) return this.readNow(key);
    this.ahead.delete(key);
    return read.then((found) => found.get(key));
  }
}
