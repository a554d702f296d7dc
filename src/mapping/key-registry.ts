import { lowerCase } from '../model/person.js';

/**
 * Remembers which keys were seen, and on which row, in fixed-size typed arrays rather than
 * a `Map` of strings: a million client_ids and e-mails cost about 12 bytes a slot and hold
 * no reference to the source's text. Keys are stored as two independent 32-bit hashes;
 * two different keys are taken for one only if both hashes collide (about 1 in 10^7 over
 * a 2-million-key file), which would at worst report a false duplicate.
 *
 * The table grows by half (not double) at three-quarters full, so that 2 million keys take
 * about 32 MB rather than 48: memory is the budget that a million-row file tests.
 */
export class KeyRegistry {
  private capacity = 4096;
  /**
   * Slot `i` is `[hashA, hashB, row]` at `3 * i`: one array, not three, so that a probe in a
   * table of millions of keys costs one cache miss rather than three. Rows are 1-based; 0
   * marks an empty slot.
   */
  private slots = new Uint32Array(this.capacity * SLOT);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The row that first used `key`, or `undefined` when it is new. */
  firstRow(key: string): number | undefined {
    return this.rowOf(keyHash(key));
  }

  /** Records `key` as used by `row`; when it was used before, returns that first row instead. */
  add(key: string, row: number): number | undefined {
    const hash = keyHash(key);
    const existing = this.rowOf(hash);
    if (existing !== undefined) return existing;
    this.insert(hash, row);
    return undefined;
  }

  /** The row stored for a hash from {@link keyHash}; hashing once serves a lookup and an insert. */
  rowOf(hash: KeyHash): number | undefined {
    const slots = this.slots;
    for (let at = this.home(hash[0]); ; at = this.next(at)) {
      const row = slots[at + 2]!;
      if (row === 0) return undefined;
      if (slots[at] === hash[0] && slots[at + 1] === hash[1]) return row;
    }
  }

  /** Every stored hash with its row, in no particular order. */
  *entries(): Generator<{ hash: KeyHash; row: number }> {
    const slots = this.slots;
    for (let at = 0; at < slots.length; at += SLOT) {
      const row = slots[at + 2]!;
      if (row !== 0) yield { hash: [slots[at]!, slots[at + 1]!], row };
    }
  }

  /** Stores a hash that {@link rowOf} did not find. */
  insert(hash: KeyHash, row: number): void {
    this.place(this.slots, hash[0], hash[1], Math.max(1, row));
    this.count++;
    if (this.count * 4 > this.capacity * 3) this.grow();
  }

  /** Points a stored hash at another row (the row that holds its key now); stores it if new. */
  assign(hash: KeyHash, row: number): void {
    const slots = this.slots;
    for (let at = this.home(hash[0]); ; at = this.next(at)) {
      if (slots[at + 2] === 0) return this.insert(hash, row);
      if (slots[at] === hash[0] && slots[at + 1] === hash[1]) {
        slots[at + 2] = Math.max(1, row);
        return;
      }
    }
  }

  private place(slots: Uint32Array, hashA: number, hashB: number, row: number): void {
    let at = this.home(hashA);
    while (slots[at + 2] !== 0) at = this.next(at);
    slots[at] = hashA;
    slots[at + 1] = hashB;
    slots[at + 2] = row;
  }

  /** A slot's offset from the hash's high bits, for any table size (multiply-shift, no modulo bias). */
  private home(hashA: number): number {
    return Math.floor((hashA / 4294967296) * this.capacity) * SLOT;
  }

  private next(at: number): number {
    return at + SLOT === this.slots.length ? 0 : at + SLOT;
  }

  private grow(): void {
    const old = this.slots;
    this.capacity = Math.ceil(this.capacity * 1.5);
    this.slots = new Uint32Array(this.capacity * SLOT);
    for (let at = 0; at < old.length; at += SLOT) {
      const row = old[at + 2]!;
      if (row !== 0) this.place(this.slots, old[at]!, old[at + 1]!, row);
    }
  }
}

const SLOT = 3;

/** Two independent 32-bit hashes of a key. */
export type KeyHash = readonly [number, number];

/** FNV-1a and a Murmur-style multiply, each finished with Murmur3's avalanche. */
export function keyHash(key: string): KeyHash {
  return prefixedKeyHash('', key);
}

/**
 * `keyHash(prefix + key)` without building that string: rows hash a kind or a param
 * position in front of each key, and a concatenation per key was a third of the cost.
 */
export function prefixedKeyHash(prefix: string, key: string): KeyHash {
  return hashOf(prefix, key, false);
}

/**
 * `prefixedKeyHash(prefix, lowerCase(key))` without building the lower-cased string: every
 * `unique:` value of every row is hashed so, and nearly all of them are ASCII, which is
 * lower-cased here as it is read. A value with any other character takes `lowerCase`'s way.
 */
export function prefixedLowerCaseHash(prefix: string, key: string): KeyHash {
  return hashOf(prefix, key, true);
}

function hashOf(prefix: string, key: string, lowerAscii: boolean): KeyHash {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < prefix.length; i++) {
    const c = prefix.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  for (let i = 0; i < key.length; i++) {
    let c = key.charCodeAt(i);
    if (lowerAscii) {
      if (c >= 0x80) return hashOf(prefix, lowerCase(key), false);
      if (c >= 65 && c <= 90) c += 32;
    }
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  return [avalanche(a), avalanche(b ^ (prefix.length + key.length))];
}

/** A hash of `hash` and a 32-bit `tag`, apart from every key's: what one key says of another. */
export function taggedHash(hash: KeyHash, tag: number): KeyHash {
  return [
    avalanche(hash[0] ^ Math.imul(tag ^ 0x9e3779b9, 0x85ebca6b)),
    avalanche((hash[1] + Math.imul(tag, 0xc2b2ae35) + 0x7f4a7c15) | 0),
  ];
}

function avalanche(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
