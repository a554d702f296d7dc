import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { paginate } from './paginate.js';
import type { PlatformCaller } from './platform-caller.js';
import type { PlatformRequest, PlatformResponse } from './platform-request.js';

/** A platform of `total` items, 2 a page, that answers after a tick and counts what is in flight. */
function fakeCaller(total: number): PlatformCaller & { asked: number[]; peak: number; open: number } {
  const caller = {
    vendor: 'test',
    asked: [] as number[],
    peak: 0,
    open: 0,
    async send(request: PlatformRequest): Promise<PlatformResponse> {
      const page = Number(request.query?.page);
      caller.asked.push(page);
      caller.open += 1;
      caller.peak = Math.max(caller.peak, caller.open);
      await new Promise((resolve) => setTimeout(resolve, 1));
      caller.open -= 1;
      const items = [2 * page - 1, 2 * page].filter((n) => n <= total);
      return { status: 200, headers: {}, body: JSON.stringify(items) };
    },
  };
  return caller;
}

const spec = { path: '/item', pageParam: 'page', item: z.number() };

async function all(caller: PlatformCaller, ahead?: number): Promise<number[]> {
  const out: number[] = [];
  for await (const item of paginate(caller, spec, ahead === undefined ? { limit: 2 } : { limit: 2, ahead }))
    out.push(item);
  return out;
}

describe('paginate', () => {
  it('reads one page at a time by default, until an empty page', async () => {
    const caller = fakeCaller(5);
    expect(await all(caller)).toEqual([1, 2, 3, 4, 5]);
    expect(caller.asked).toEqual([1, 2, 3, 4]);
    expect(caller.peak).toBe(1);
  });

  it('asks for pages ahead, yields them in order, and leaves no request behind', async () => {
    const caller = fakeCaller(9);
    expect(await all(caller, 3)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(caller.peak).toBe(3);
    // Pages 1–5 hold the items (5 is short); 6 is the empty one; 7 was asked ahead.
    expect(caller.asked).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(caller.open).toBe(0);
  });

  it('asks a short list one page at a time: the window grows after full pages only', async () => {
    const caller = fakeCaller(1);
    expect(await all(caller, 16)).toEqual([1]);
    expect(caller.asked).toEqual([1, 2]);
  });

  it('waits for the pages asked ahead when the reader stops early', async () => {
    const caller = fakeCaller(100);
    for await (const item of paginate(caller, spec, { ahead: 4 })) if (item === 3) break;
    expect(caller.open).toBe(0);
  });

  it('refuses a read-ahead that is not a whole number of pages', async () => {
    await expect(all(fakeCaller(1), 0)).rejects.toThrow(RangeError);
  });
});
