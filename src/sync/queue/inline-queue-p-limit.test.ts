import pLimit from 'p-limit';
import { describe, expect, it, vi } from 'vitest';
import { createInlineQueue } from './inline-queue.js';

vi.mock('p-limit', async (importOriginal) => {
  const actual = await importOriginal<{ default: typeof pLimit }>();
  return { ...actual, default: vi.fn(actual.default) };
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('the inline queue', () => {
  it('bounds its handlers with p-limit at the given concurrency', async () => {
    const queue = createInlineQueue<number, void>({ concurrency: 3, handler: () => sleep(1) });
    expect(pLimit).toHaveBeenLastCalledWith(3);
    await queue.enqueue([1, 2, 3, 4]);
    await queue.drain();
    await queue.close();
  });

  it('close drops what p-limit still holds and wakes a drain taken before it', async () => {
    const started: number[] = [];
    const queue = createInlineQueue<number, void>({
      concurrency: 1,
      handler: async (n) => {
        started.push(n);
        await sleep(20);
      },
    });
    await queue.enqueue([1, 2, 3]);
    const drained = queue.drain();
    await sleep(5);
    expect(queue.stats()).toMatchObject({ waiting: 2, active: 1 });
    await queue.close();
    await drained;
    expect(started).toEqual([1]);
    expect(queue.stats()).toMatchObject({ waiting: 0, active: 0, completed: 1 });
  });
});
