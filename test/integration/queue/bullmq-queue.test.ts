import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll } from 'vitest';
import { createBullmqQueue } from '../../../src/sync/queue/bullmq-queue.js';
import { describeQueueConformance } from '../../helpers/queue-conformance.js';
import { serviceAvailable, SERVICES } from '../../helpers/services.js';

const ready = await serviceAvailable('redis');

if (ready) {
  const prefix = `evsync-test-${randomBytes(4).toString('hex')}`;
  const connections: Redis[] = [];
  afterAll(async () => {
    const keys = await connections[0]?.keys(`${prefix}:*`);
    if (keys && keys.length > 0) await connections[0]!.del(...keys);
    for (const redis of connections) redis.disconnect();
  });
  let queues = 0;
  describeQueueConformance('bullmq', (options) => {
    const connection = new Redis(SERVICES.redis.url, { maxRetriesPerRequest: null });
    connections.push(connection);
    queues += 1;
    return createBullmqQueue({ ...options, connection, prefix, name: `conformance-${queues}` });
  });
}
