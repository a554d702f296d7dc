/**
 * Remembers which keys were seen, and on which row, in fixed-size typed arrays rather than
 * a `Map` of strings: a million client_ids and e-mails cost about 12 bytes a slot and hold
 * no reference to the source's text. Keys are stored as two independent 32-bit hashes;
 * two different keys are taken for one only if both hashes collide (about 1 in 10^7 over
 * a 2-million-key file), which would at worst report a false duplicate.
 */
export class KeyRegistry {
  private capacity = 1 << 12;
  private hashA = new Uint32Array(this.capacity);
  private hashB = new Uint32Array(this.capacity);
  /** 1-based row numbers; 0 marks an empty slot. */
  private rows = new Uint32Array(this.capacity);
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
    const mask = this.capacity - 1;
    for (let slot = hash[0] & mask; ; slot = (slot + 1) & mask) {
      const row = this.rows[slot]!;
      if (row === 0) return undefined;
      if (this.hashA[slot] === hash[0] && this.hashB[slot] === hash[1]) return row;
    }
  }

  /** Stores a hash that {@link rowOf} did not find. */
  insert(hash: KeyHash, row: number): void {
    const mask = this.capacity - 1;
    let slot = hash[0] & mask;
    while (this.rows[slot] !== 0) slot = (slot + 1) & mask;
    this.hashA[slot] = hash[0];
    this.hashB[slot] = hash[1];
    this.rows[slot] = Math.max(1, row);
    this.count++;
    if (this.count * 10 > this.capacity * 7) this.grow();
  }

  private grow(): void {
    const { hashA, hashB, rows } = this;
    this.capacity *= 2;
    this.hashA = new Uint32Array(this.capacity);
    this.hashB = new Uint32Array(this.capacity);
    this.rows = new Uint32Array(this.capacity);
    const mask = this.capacity - 1;
    for (let old = 0; old < rows.length; old++) {
      const row = rows[old]!;
      if (row === 0) continue;
      let slot = hashA[old]! & mask;
      while (this.rows[slot] !== 0) slot = (slot + 1) & mask;
      this.hashA[slot] = hashA[old]!;
      this.hashB[slot] = hashB[old]!;
      this.rows[slot] = row;
    }
  }
}

/** Two independent 32-bit hashes of a key. */
export type KeyHash = readonly [number, number];

/** FNV-1a and a Murmur-style multiply, each finished with Murmur3's avalanche. */
export function keyHash(key: string): KeyHash {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  return [avalanche(a), avalanche(b ^ key.length)];
}

function avalanche(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
