import { describe, expect, it } from 'vitest';
import { InlineQueue, createInlineQueue } from './inline-queue.js';
import { describeQueueConformance } from '../../../test/helpers/queue-conformance.js';

describeQueueConformance('inline', (options) => Promise.resolve(createInlineQueue(options)));

describe('InlineQueue', () => {
  it('refuses a concurrency below 1', () => {
    expect(() => new InlineQueue({ concurrency: 0, handler: async () => {} })).toThrow(/concurrency/);
  });

  it('handles 50,000 items without holding the finished ones', async () => {
    let done = 0;
    const queue = createInlineQueue<number, void>({
      concurrency: 8,
      handler: () => {
        done += 1;
        return Promise.resolve();
      },
    });
    await queue.enqueue([...Array(50_000).keys()]);
    await queue.drain();
    expect(done).toBe(50_000);
    expect(queue.stats().waiting).toBe(0);
  });
});
