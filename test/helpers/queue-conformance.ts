import { describe, expect, it } from 'vitest';
import type { QueueOptions, WorkQueue } from '../../src/sync/queue/work-queue.js';

/** Makes a fresh queue of the adapter under test; `cleanup` runs after each test. */
export type QueueFactory = <W, R>(options: QueueOptions<W, R>) => Promise<WorkQueue<W, R>>;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What every queue adapter must do, run against each of them:
 * the engine relies on exactly these properties and nothing else.
 */
export function describeQueueConformance(adapter: string, makeQueue: QueueFactory): void {
  describe(`queue conformance: ${adapter}`, () => {
    it('handles every enqueued item exactly once and drain waits for all of them', async () => {
      const seen: number[] = [];
      const queue = await makeQueue<number, number>({
        concurrency: 3,
        handler: async (n) => {
          await sleep(n % 3);
          seen.push(n);
          return n * 2;
        },
      });
      const results = new Map<number, number>();
      queue.on('completed', (item, result) => results.set(item, result));
      await queue.enqueue([...Array(50).keys()]);
      await queue.enqueue([50, 51]);
      await queue.drain();
      expect(seen.sort((a, b) => a - b)).toEqual([...Array(52).keys()]);
      expect(results.get(51)).toBe(102);
      expect(queue.stats()).toMatchObject({ waiting: 0, active: 0, completed: 52, failed: 0 });
      await queue.close();
    });

    it('never runs more handlers at once than its concurrency', async () => {
      let active = 0;
      let peak = 0;
      const queue = await makeQueue<number, void>({
        concurrency: 4,
        handler: async () => {
          active += 1;
          peak = Math.max(peak, active);
          await sleep(2);
          active -= 1;
        },
      });
      await queue.enqueue([...Array(40).keys()]);
      await queue.drain();
      expect(peak).toBe(4);
      await queue.close();
    });

    it('drain on an empty queue resolves at once', async () => {
      const queue = await makeQueue<number, void>({ handler: async () => {} });
      await expect(queue.drain()).resolves.toBeUndefined();
      await queue.close();
    });

    it('reports a throwing handler as failed and goes on with the rest', async () => {
      const queue = await makeQueue<number, number>({
        concurrency: 2,
        handler: async (n) => {
          await sleep(1);
          if (n === 3) throw new Error('boom');
          return n;
        },
      });
      const failures: Array<[number, unknown]> = [];
      queue.on('failed', (item, error) => failures.push([item, error]));
      await queue.enqueue([1, 2, 3, 4, 5]);
      await queue.drain();
      expect(failures).toHaveLength(1);
      expect(failures[0]?.[0]).toBe(3);
      expect(queue.stats()).toMatchObject({ completed: 4, failed: 1 });
      await queue.close();
    });

    it('close stops new work, lets handlers in flight finish, and refuses more work', async () => {
      const started: number[] = [];
      const finished: number[] = [];
      const queue = await makeQueue<number, void>({
        concurrency: 2,
        handler: async (n) => {
          started.push(n);
          await sleep(30);
          finished.push(n);
        },
      });
      await queue.enqueue([1, 2, 3, 4, 5, 6]);
      await sleep(5);
      await queue.close();
      expect(started).toEqual([1, 2]);
      expect(finished.sort()).toEqual([1, 2]);
      expect(queue.closed).toBe(true);
      await expect(queue.enqueue([7])).rejects.toThrow(/closed/);
      await expect(queue.drain()).resolves.toBeUndefined();
      await sleep(40);
      expect(started).toEqual([1, 2]);
    });

    it('keeps enqueue order when concurrency is 1', async () => {
      const order: string[] = [];
      const queue = await makeQueue<string, void>({
        concurrency: 1,
        handler: async (s) => {
          await sleep(1);
          order.push(s);
        },
      });
      await queue.enqueue(['a', 'b', 'c', 'd']);
      await queue.drain();
      expect(order).toEqual(['a', 'b', 'c', 'd']);
      await queue.close();
    });

    it('lets an unsubscribed listener go', async () => {
      const queue = await makeQueue<number, number>({ handler: (n) => Promise.resolve(n) });
      let calls = 0;
      const off = queue.on('completed', () => {
        calls += 1;
      });
      await queue.enqueue([1]);
      await queue.drain();
      off();
      await queue.enqueue([2]);
      await queue.drain();
      expect(calls).toBe(1);
      await queue.close();
    });
  });
}
