import { describe, expect, it } from 'vitest';
import { CompactIdMap } from './compact-id-map.js';

/** A small deterministic generator (mulberry32), so a failure repeats. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ['u-1', 'ZOË-ÜNÏCODE', '🎉 party', 'a', '', 'u-1 ', 'ses-013', 'x'.repeat(300), '日本語キー'];

describe('CompactIdMap', () => {
  it('answers as a Map does under sets, deletes and growth, in the same order', () => {
    const next = random(7);
    const compact = new CompactIdMap();
    const map = new Map<string, number>();
    for (let step = 0; step < 60_000; step++) {
      const pick = Math.floor(next() * 20_000);
      const key = pick < KEYS.length ? KEYS[pick]! : `user-${pick}`;
      const roll = next();
      if (roll < 0.7) {
        compact.set(key, pick * 10 + step);
        map.set(key, pick * 10 + step);
      } else if (roll < 0.85) {
        expect(compact.delete(key)).toBe(map.delete(key));
      } else {
        expect(compact.get(key)).toBe(map.get(key));
        expect(compact.has(key)).toBe(map.has(key));
      }
    }
    expect(compact.size).toBe(map.size);
    expect([...compact]).toEqual([...map]);
    expect([...compact.keys()]).toEqual([...map.keys()]);
    expect([...compact.values()]).toEqual([...map.values()]);
  });

  it('keeps keys that differ only in bytes apart, and ids up to 2^53', () => {
    const compact = new CompactIdMap([
      ['e\u0301', 1],
      ['\u00e9', 2],
      ['big', Number.MAX_SAFE_INTEGER],
    ]);
    expect(compact.get('e\u0301')).toBe(1);
    expect(compact.get('\u00e9')).toBe(2);
    expect(compact.get('big')).toBe(Number.MAX_SAFE_INTEGER);
    expect(compact.get('e')).toBeUndefined();
  });

  it('puts a key set again after its delete last, as a Map does', () => {
    const compact = new CompactIdMap([
      ['a', 1],
      ['b', 2],
    ]);
    compact.delete('a');
    compact.set('a', 3);
    compact.set('b', 4);
    expect([...compact]).toEqual([
      ['b', 4],
      ['a', 3],
    ]);
    const seen: string[] = [];
    compact.forEach((id, key) => seen.push(`${key}=${id}`));
    expect(seen).toEqual(['b=4', 'a=3']);
  });
});
