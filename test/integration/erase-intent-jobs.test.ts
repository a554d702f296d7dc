import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { eraseIntentJobs } from '../../src/distributed/erase-intent-jobs.js';
import { IntentQueue, intentJobId } from '../../src/distributed/intent-queue.js';
import { serviceAvailable, SERVICES } from '../helpers/services.js';

const available = await serviceAvailable('redis');

describe.skipIf(!available)('eraseIntentJobs (issue #42: Redis keeps no job naming an erased person)', () => {
  const prefix = `evsync-test-erase-${randomBytes(4).toString('hex')}`;
  const redis = available ? new Redis(SERVICES.redis.url) : undefined;
  afterAll(async () => {
    if (redis === undefined) return;
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it("removes waiting and finished jobs of the person's keys, and leaves the others", async () => {
    const queue = new IntentQueue(redis!, prefix);
    const job = (kind: 'user' | 'speaker', key: string) => ({
      runId: 'r1',
      epoch: 'e1',
      phase: kind === 'user' ? ('users' as const) : ('links' as const),
      kind,
      key,
    });
    await queue.queue.addBulk(
      // With the ids a run gives its jobs: they begin with the key's readable part.
      [job('user', 'att-0008'), job('speaker', 'ses-1/att-0008'), job('user', 'att-0009')].map((data) => ({
        name: 'intent',
        data,
        opts: { jobId: intentJobId(data) },
      })),
    );
    const names = (kind: string, key: string): boolean =>
      kind === 'user' ? key === 'att-0008' : key.split('/').includes('att-0008');
    const erased = await eraseIntentJobs(
      { redisUrl: SERVICES.redis.url, prefix, description: 'test' },
      names,
    );
    expect(erased).toEqual({ removed: 2, active: 0 });
    const left = await queue.queue.getJobs(['waiting']);
    expect(left.map((j) => j.data.key)).toEqual(['att-0009']);
    const keys = await redis!.keys(`${prefix}*`);
    // Job ids begin with the key's readable part: none is left in Redis.
    expect(keys.some((key) => key.includes('att-0008'))).toBe(false);
    expect(keys.some((key) => key.includes('att-0009'))).toBe(true);
    await queue.close();
  });
});
