import type { Ledger } from '../../ledger/ledger.js';
import { KeyRegistry } from '../../mapping/key-registry.js';
import type { IntentKind } from '../../model/intent.js';

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

  constructor(private readonly ledger: SyncedHashLedger) {}

  /**
   * The synced hash of each of these intents' keys that has one. A key whose hash matches
   * the intent's is answered with the intent's hash; `plannedBefore` keys are looked up.
   */
  async of(
    kind: IntentKind,
    /** Each key with its intent's hash, computed only when the key has a synced hash to compare. */
    intents: ReadonlyArray<{ key: string; hash: () => string }>,
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
    for (const { key, hash } of intents) {
      const matched = plannedBefore(key) ? undefined : index.match(key, hash);
      if (matched === undefined) asked.push(key);
      else found.set(key, matched);
    }
    if (asked.length > 0)
      for (const [key, hash] of await this.ledger.hashesOf(kind, asked)) found.set(key, hash);
    return found;
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
    for await (const page of ledger.hashTails(kind)) for (const [key, tail] of page) index.add(key, tail);
    return index;
  }

  /** The intent's hash when the key's synced hash ends as it does; undefined otherwise. */
  match(key: string, hashOf: () => string): string | undefined {
    const row = this.keys.firstRow(key);
    if (row === undefined) return undefined;
    const hash = hashOf();
    const words = tailWords(hash);
    const at = 2 * (row - 1);
    return words !== undefined && this.tails[at] === words[0] && this.tails[at + 1] === words[1]
      ? hash
      : undefined;
  }

  private add(key: string, tail: string): void {
    const words = tailWords(tail);
    // A hash that is no hex (one erased by migration 4, one without a key) matches nothing.
    if (words === undefined) return;
    if (this.keys.add(key, this.count + 1) !== undefined) return;
    if (2 * this.count + 2 > this.tails.length) {
      const grown = new Uint32Array(Math.ceil(this.tails.length * 1.5));
      grown.set(this.tails);
      this.tails = grown;
    }
    this.tails[2 * this.count] = words[0];
    this.tails[2 * this.count + 1] = words[1];
    this.count++;
  }
}

const HEX_TAIL = /^[0-9a-f]{16}$/;

/** The last 16 hex digits of a hash as two 32-bit words, or undefined when they are no hex. */
function tailWords(hash: string): [number, number] | undefined {
  const tail = hash.slice(-16);
  if (!HEX_TAIL.test(tail)) return undefined;
  return [Number.parseInt(tail.slice(0, 8), 16), Number.parseInt(tail.slice(8), 16)];
}
