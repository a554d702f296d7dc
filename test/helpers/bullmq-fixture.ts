import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll } from 'vitest';
import type { BullmqTarget } from '../../src/sync/queue/bullmq-target.js';
import { SERVICES } from './services.js';

/**
 * Queues of one test file on the real Redis: a prefix of the file's own and a fresh queue
 * name per call; after the file, each queue is obliterated (never FLUSHALL: other tests
 * and agents share this Redis).
 */
export function bullmqTargets(): () => BullmqTarget {
  const prefix = `evsync-test-${randomBytes(4).toString('hex')}`;
  const names: string[] = [];
  afterAll(async () => {
    const connection = new Redis(SERVICES.redis.url, { maxRetriesPerRequest: 1 });
    for (const name of names) {
      const queue = new Queue(name, { connection, prefix });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    connection.disconnect();
  });
  return () => {
    const name = `q${names.length + 1}`;
    names.push(name);
    return { redisUrl: SERVICES.redis.url, prefix, name };
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
