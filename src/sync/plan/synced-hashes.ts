import type { Ledger } from '../../ledger/ledger.js';
import { KeyRegistry } from '../../mapping/key-registry.js';
import type { IntentKind } from '../../model/intent.js';
import type { SyncedHashOf } from '../../mapping/mapped-item.js';
import { hashIntent } from './params-hash.js';

/** The ledger a streamed plan reads its synced hashes from. */
export type SyncedHashLedger = Pick<Ledger, 'hashesOf' | 'hashTails'>;

/**
 * Chunks of a kind a plan looks up key by key before it reads the kind's synced hashes at
 * once: a small job on a ledger that knows many keys asks only about its own.
 */
export const LOOK_UP_CHUNKS = 2;

/**
 * The last-synced hashes of a streamed plan's keys (docs/sync-engine.md, "Memory"). A look-up
 * per key cost about 100 µs on the embedded ledger (an index probe each, 1,000 per
 * statement), the largest share of a nightly run that changed little. From its third chunk
 * of a kind on, a plan reads the kind's synced hashes once, in key order, and keeps per key
 * 64 bits of the key and 64 of its hash (about 20 bytes: a {@link KeyRegistry} slot and two
 * words). A row whose hash matches is unchanged without asking the ledger; only the rest
 * (changed, new, or a key this run already planned, whose hash the run may have changed
 * since) is looked up, exactly, as before.
 *
 * A false "unchanged" needs the row's new hash to share its last 64 bits with the one
 * synced: 1 in 2^64 per changed row. Two keys sharing a 64-bit hash only send the second
 * row's look-up to the ledger.
 */
export class SyncedHashes {
  private readonly chunks = new Map<IntentKind, number>();
  private readonly loaded = new Map<IntentKind, Promise<TailIndex>>();
  /** The kinds whose index is read and published, for {@link hashIfSynced}, which cannot wait. */
  private readonly ready = new Map<IntentKind, TailIndex>();

  constructor(private readonly ledger: SyncedHashLedger) {}

  /**
   * The synced hash of each of these intents' keys that has one. A key whose hash matches
   * the intent's is answered with the intent's hash; `plannedBefore` keys are looked up.
   */
  async of<I extends { readonly key: string }>(
    kind: IntentKind,
    intents: readonly I[],
    /** An intent's hash, asked only when its key has a synced hash to compare. */
    hashOf: (intent: I) => string,
    plannedBefore: (key: string) => boolean,
  ): Promise<Map<string, string>> {
    const seen = (this.chunks.get(kind) ?? 0) + 1;
    this.chunks.set(kind, seen);
    // Read from the last chunk looked up on, while that chunk is planned and the next read.
    if (seen >= LOOK_UP_CHUNKS && !this.loaded.has(kind)) {
      const reading = TailIndex.read(this.ledger, kind);
      // Waited for by the next chunk, which throws what it threw.
      reading.catch(() => undefined);
      this.loaded.set(kind, reading);
    }
    const index = seen > LOOK_UP_CHUNKS ? await this.loaded.get(kind) : undefined;
    if (index === undefined)
      return this.ledger.hashesOf(
        kind,
        intents.map((intent) => intent.key),
      );
    const found = new Map<string, string>();
    const asked: string[] = [];
    for (const intent of intents) {
      const matched = plannedBefore(intent.key) ? undefined : index.match(intent, hashOf);
      if (matched === undefined) asked.push(intent.key);
      else found.set(intent.key, matched);
    }
    if (asked.length > 0)
      for (const [key, hash] of await this.ledger.hashesOf(kind, asked)) found.set(key, hash);
    return found;
  }

  /**
   * Waits for every index whose read has started, and lets {@link hashIfSynced} answer from
   * it. The reader of the sources calls it between two chunks, once the chunk before is
   * planned: which rows the mapping finds synced then depends on the sources alone, never
   * on how fast the ledger answered (a row a newer release's check refuses is refused on
   * every run, or on none). The wait is mostly the index's own reading, on this thread.
   */
  async publish(): Promise<void> {
    for (const [kind, reading] of this.loaded) if (!this.ready.has(kind)) this.ready.set(kind, await reading);
  }

  /** Reads of kinds' synced hashes started by the plan, and how many of them are published. */
  reads(): { started: number; published: number } {
    return { started: this.loaded.size, published: this.ready.size };
  }

  /**
   * `hash()` when the key's synced hash ends as it does, once the kind's index is published
   * (the mapping of rows read before then asks the ledger through the plan, as before);
   * hashed only for a key the index holds. A nightly run's mapping asks it of every row.
   */
  hashIfSynced(kind: IntentKind, key: string, hash: () => string): string | undefined {
    return this.ready.get(kind)?.matchKey(key, hash);
  }

  /**
   * {@link hashIfSynced} as the run's mapping asks it (`MapSourceOptions.syncedHash`), with
   * the plan's hash key. A full run sends synced rows again: each is checked as any other.
   */
  forMapping(hashKey: Uint8Array | undefined, full: boolean): SyncedHashOf {
    return (kind, key, op, params) =>
      full ? undefined : this.hashIfSynced(kind, key, () => hashIntent(op, params, hashKey));
  }
}

/** Keys of one kind with 64 bits of their synced hash. */
class TailIndex {
  private readonly keys = new KeyRegistry();
  /** Two words per key, at `2 * (row - 1)`. */
  private tails = new Uint32Array(2 * 4096);
  private count = 0;

  static async read(ledger: SyncedHashLedger, kind: IntentKind): Promise<TailIndex> {
    const index = new TailIndex();
    for await (const { keys, tails } of ledger.hashTails(kind))
      for (let i = 0; i < keys.length; i++) index.add(keys[i]!, tails, 16 * i + 16);
    return index;
  }

  /** The intent's hash when the key's synced hash ends as it does; undefined otherwise. */
  match<I extends { readonly key: string }>(intent: I, hashOf: (intent: I) => string): string | undefined {
    const row = this.keys.firstRow(intent.key);
    return row === undefined ? undefined : this.endsAs(row, hashOf(intent));
  }

  /** {@link match} of a key and the hash of its params. */
  matchKey(key: string, hash: () => string): string | undefined {
    const row = this.keys.firstRow(key);
    return row === undefined ? undefined : this.endsAs(row, hash());
  }

  private endsAs(row: number, hash: string): string | undefined {
    const at = 2 * (row - 1);
    // Word by word, as the hash's text is read: a row of a nightly run allocates nothing here.
    return this.tails[at] === tailWord(hash, 0) && this.tails[at + 1] === tailWord(hash, 1)
      ? hash
      : undefined;
  }

  /** The key with the synced tail that ends at `end` in `tails` (`Ledger.hashTails`' page). */
  private add(key: string, tails: string, end: number): void {
    const high = tailWord(tails, 0, end);
    const low = tailWord(tails, 1, end);
    // A hash that is no hex (one erased by migration 4, one without a key) matches nothing.
    if (high < 0 || low < 0) return;
    if (this.keys.add(key, this.count + 1) !== undefined) return;
    if (2 * this.count + 2 > this.tails.length) {
      const grown = new Uint32Array(Math.ceil(this.tails.length * 1.5));
      grown.set(this.tails);
      this.tails = grown;
    }
    this.tails[2 * this.count] = high;
    this.tails[2 * this.count + 1] = low;
    this.count++;
  }
}

/**
 * Word `word` (0: the high, 1: the low) of the 16 hex digits (lower case) that end at `end`
 * in `hash` (its last 16 unless told), or -1 when those 8 characters are not all such digits
 * (or the hash is shorter): -1 equals no stored word, so a hash that is no hex matches nothing.
 */
export function tailWord(hash: string, word: 0 | 1, end = hash.length): number {
  const start = end - 16 + 8 * word;
  if (start < 8 * word) return -1;
  let value = 0;
  for (let i = start; i < start + 8; i++) {
    const c = hash.charCodeAt(i);
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (digit < 0) return -1;
    // Times 16, not a shift: a word with its top bit set stays positive, as a Uint32Array holds it.
    value = value * 16 + digit;
  }
  return value;
}
