import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SpillBuckets } from './spill-buckets.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function drained<T>(spill: SpillBuckets<T>): Promise<T[][]> {
  const buckets: T[][] = [];
  for await (const bucket of spill.drain()) buckets.push(bucket);
  return buckets;
}

describe('SpillBuckets', () => {
  it('gives every value of a group in one bucket, in the order they came, from memory or files alike', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spill-test-'));
    dirs.push(dir);
    // 200 characters of memory: the values go to files after the first few.
    const spill = new SpillBuckets<{ group: string; n: number }>({ dir, buckets: 4, memoryChars: 200 });
    for (let n = 0; n < 300; n++) await spill.add(`g${n % 7}`, { group: `g${n % 7}`, n });
    expect(readdirSync(dir)).toHaveLength(1);
    const buckets = await drained(spill);
    expect(buckets.flat()).toHaveLength(300);
    const bucketOf = new Map<string, number>();
    buckets.forEach((bucket, index) => {
      for (const value of bucket) {
        expect(bucketOf.get(value.group) ?? index).toBe(index);
        bucketOf.set(value.group, index);
      }
      const ns = bucket.map((value) => value.n);
      expect(ns).toEqual([...ns].sort((a, b) => a - b));
    });
    await spill.dispose();
    expect(readdirSync(dir)).toHaveLength(0);
  });

  it('splits a bucket larger than bucketChars, so that no bucket drained holds much more', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spill-test-'));
    dirs.push(dir);
    // 2 buckets of at most 2,000 characters for some 60,000: each is split, its groups kept whole.
    const spill = new SpillBuckets<{ group: string; n: number }>({
      dir,
      buckets: 2,
      memoryChars: 5_000,
      bucketChars: 2_000,
    });
    for (let n = 0; n < 2_000; n++)
      await spill.add(`person${n % 500}@example.org`, { group: `p${n % 500}`, n });
    const buckets = await drained(spill);
    expect(buckets.length).toBeGreaterThan(20);
    expect(buckets.flat()).toHaveLength(2_000);
    const bucketOf = new Map<string, number>();
    buckets.forEach((bucket, index) => {
      // About 30 characters a line: a bucket holds about 2,000 characters, a few times that at most.
      expect(bucket.length).toBeLessThan(250);
      for (const value of bucket) {
        expect(bucketOf.get(value.group) ?? index).toBe(index);
        bucketOf.set(value.group, index);
      }
      const ns = bucket.map((value) => value.n);
      expect(ns).toEqual([...ns].sort((a, b) => a - b));
    });
    await spill.dispose();
    expect(readdirSync(dir)).toHaveLength(0);
  });

  it('keeps a bucket of one group whole, however large', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spill-test-'));
    dirs.push(dir);
    const spill = new SpillBuckets<number>({ dir, buckets: 2, memoryChars: 100, bucketChars: 100 });
    for (let n = 0; n < 300; n++) await spill.add('one@example.org', n);
    const buckets = await drained(spill);
    expect(buckets).toEqual([Array.from({ length: 300 }, (_, n) => n)]);
    await spill.dispose();
    expect(readdirSync(dir)).toHaveLength(0);
  });

  it('keeps a few values in memory and writes no file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spill-test-'));
    dirs.push(dir);
    const spill = new SpillBuckets<number>({ dir });
    await spill.add('a', 1);
    await spill.add('a', 2);
    expect((await drained(spill)).flat()).toEqual([1, 2]);
    expect(readdirSync(dir)).toHaveLength(0);
  });
});
