import { describe, expect, it } from 'vitest';
import { createInlineQueue } from './inline-queue.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('the inline queue', () => {
  it('runs at most `concurrency` handlers at once, in enqueue order, none inside enqueue', async () => {
    let active = 0;
    let most = 0;
    const started: number[] = [];
    const queue = createInlineQueue<number, void>({
      concurrency: 3,
      handler: async (n) => {
        started.push(n);
        active += 1;
        most = Math.max(most, active);
        await sleep(1 + (n % 3));
        active -= 1;
      },
    });
    const enqueued = queue.enqueue([1, 2, 3, 4, 5]);
    expect(started).toEqual([]);
    await enqueued;
    await queue.enqueue([6, 7]);
    await queue.drain();
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
    await queue.close();
  });

  it('close drops what has not started and wakes a drain taken before it', async () => {
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
