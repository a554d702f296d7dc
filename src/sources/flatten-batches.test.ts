import { describe, expect, it } from 'vitest';
import { flattenBatches } from './flatten-batches.js';

describe('flattenBatches', () => {
  it('yields every item in order, skipping empty batches', async () => {
    async function* batches(): AsyncGenerator<number[]> {
      await Promise.resolve();
      yield [1, 2];
      yield [];
      yield [3];
    }
    const seen: number[] = [];
    for await (const item of flattenBatches(batches())) seen.push(item);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('closes the source when the reader leaves early', async () => {
    let closed = false;
    async function* batches(): AsyncGenerator<number[]> {
      try {
        for (let i = 0; ; i++) yield await Promise.resolve([i, i]);
      } finally {
        closed = true;
      }
    }
    let count = 0;
    for await (const _item of flattenBatches(batches())) if (++count === 3) break;
    expect(closed).toBe(true);
  });

  it('passes the source error on', async () => {
    async function* batches(): AsyncGenerator<number[]> {
      yield await Promise.resolve([1]);
      throw new Error('file vanished');
    }
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const item of flattenBatches(batches())) seen.push(item);
      })(),
    ).rejects.toThrow('file vanished');
    expect(seen).toEqual([1]);
  });
});
