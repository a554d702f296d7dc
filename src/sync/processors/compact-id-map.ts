import { keyHash } from '../../mapping/key-registry.js';

/**
 * A `Map` of client_id → platform id kept in typed arrays and one byte buffer: the id cache
 * of a run holds every user and event the ledger knows, and as a `Map` of strings a million
 * of them cost about 100 bytes each on V8's heap, some 3× that in peak RSS (docs/sync-engine.md,
 * "Memory"). Here a key costs its UTF-8 bytes and about 30 bytes of arrays outside the heap,
 * which the collector neither walks nor lets the heap grow by. Keys are compared whole: a
 * look-up never takes one client_id for another, as a hash alone could.
 *
 * It behaves as a `Map`: iteration in insertion order, `set` of a present key keeps its
 * place, `delete` then `set` puts the key last.
 */
export class CompactIdMap implements ReadonlyMap<string, number> {
  /** Every key ever set, as UTF-8, back to back; entry `i` is `bytes[starts[i], starts[i + 1])`. */
  private bytes = Buffer.allocUnsafe(64 * 1024);
  private starts = new Uint32Array(1025);
  /** The platform id of entry `i`; NaN once it is deleted. */
  private ids = new Float64Array(1024);
  private hashes = new Uint32Array(1024);
  /** Entries written, deleted ones included. */
  private entries_ = 0;
  private live = 0;
  /** Open addressing, linear probing: entry index + 1 of a key's newest entry; 0 is empty. */
  private slots = new Int32Array(2048);
  /** Keys with a slot (deleted ones keep theirs, so a `set` after a `delete` finds it). */
  private slotted = 0;
  private scratch = Buffer.allocUnsafe(256);
  /** Bytes of the key last written into `scratch`. */
  private encoded = 0;

  constructor(entries: Iterable<readonly [string, number]> = []) {
    for (const [key, id] of entries) this.set(key, id);
  }

  get size(): number {
    return this.live;
  }

  get(key: string): number | undefined {
    const entry = this.entryOf(key, keyHash(key)[0]);
    if (entry < 0) return undefined;
    const id = this.ids[entry]!;
    return Number.isNaN(id) ? undefined : id;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, id: number): this {
    const hash = keyHash(key)[0];
    const slot = this.slotOf(key, hash);
    const entry = this.slots[slot]! - 1;
    if (entry >= 0 && !Number.isNaN(this.ids[entry]!)) {
      this.ids[entry] = id;
      return this;
    }
    const added = this.append(hash, id);
    this.live++;
    if (entry >= 0) {
      this.slots[slot] = added + 1;
      return this;
    }
    this.slots[slot] = added + 1;
    this.slotted++;
    if (this.slotted * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    return this;
  }

  delete(key: string): boolean {
    const entry = this.entryOf(key, keyHash(key)[0]);
    if (entry < 0 || Number.isNaN(this.ids[entry]!)) return false;
    this.ids[entry] = Number.NaN;
    this.live--;
    return true;
  }

  *entries(): MapIterator<[string, number]> {
    for (let entry = 0; entry < this.entries_; entry++) {
      const id = this.ids[entry]!;
      if (!Number.isNaN(id)) yield [this.keyAt(entry), id];
    }
  }

  *keys(): MapIterator<string> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): MapIterator<number> {
    for (const [, id] of this.entries()) yield id;
  }

  [Symbol.iterator](): MapIterator<[string, number]> {
    return this.entries();
  }

  forEach(callback: (value: number, key: string, map: ReadonlyMap<string, number>) => void): void {
    for (const [key, id] of this.entries()) callback(id, key, this);
  }

  /** The entry of `key`'s slot, or -1 when it never had one. */
  private entryOf(key: string, hash: number): number {
    return this.slots[this.slotOf(key, hash)]! - 1;
  }

  /** The slot that holds `key`, or the empty slot where it would go. */
  private slotOf(key: string, hash: number): number {
    const length = this.encode(key);
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot]! - 1;
      if (entry < 0) return slot;
      if (this.hashes[entry] !== hash) continue;
      const start = this.starts[entry]!;
      const end = this.starts[entry + 1]!;
      if (end - start === length && this.bytes.compare(this.scratch, 0, length, start, end) === 0)
        return slot;
    }
  }

  /** Writes `key` into the scratch buffer as UTF-8; returns its length in bytes. */
  private encode(key: string): number {
    // Three bytes per UTF-16 unit at most (a surrogate pair is four bytes for two units).
    if (key.length * 3 > this.scratch.length) this.scratch = Buffer.allocUnsafe(key.length * 3);
    this.encoded = this.scratch.write(key, 0, 'utf8');
    return this.encoded;
  }

  /** Adds an entry for the key in the scratch buffer (`slotOf` encoded it). */
  private append(hash: number, id: number): number {
    const length = this.encoded;
    const entry = this.entries_;
    if (entry === this.ids.length) this.growEntries();
    const start = this.starts[entry]!;
    if (start + length > this.bytes.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, start + length));
      this.bytes.copy(bigger, 0, 0, start);
      this.bytes = bigger;
    }
    this.scratch.copy(this.bytes, start, 0, length);
    this.starts[entry + 1] = start + length;
    this.ids[entry] = id;
    this.hashes[entry] = hash;
    this.entries_++;
    return entry;
  }

  private growEntries(): void {
    const capacity = this.ids.length * 2;
    const starts = new Uint32Array(capacity + 1);
    starts.set(this.starts);
    this.starts = starts;
    const ids = new Float64Array(capacity);
    ids.set(this.ids);
    this.ids = ids;
    const hashes = new Uint32Array(capacity);
    hashes.set(this.hashes);
    this.hashes = hashes;
  }

  /** A table of `size` slots holding each key's newest entry. */
  private rehash(size: number): void {
    const old = this.slots;
    this.slots = new Int32Array(size);
    const mask = size - 1;
    for (const held of old) {
      if (held === 0) continue;
      let slot = this.hashes[held - 1]! & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
      this.slots[slot] = held;
    }
  }

  private keyAt(entry: number): string {
    return this.bytes.toString('utf8', this.starts[entry], this.starts[entry + 1]);
  }
}
