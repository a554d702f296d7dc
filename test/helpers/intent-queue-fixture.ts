import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Redis } from 'ioredis';
import { afterAll } from 'vitest';
import { platformBucket, setSharedRate } from '../../src/distributed/open-distributed.js';
import { IntentQueue, startIntentWorker } from '../../src/distributed/intent-queue.js';
import { openRedis } from '../../src/sync/queue/redis-connection.js';
import type { IntentQueueUnderTest, SpawnedWorker } from './intent-queue-conformance.js';
import { ROOT } from './sandbox-process.js';
import { SERVICES } from './services.js';

const WORKER_SCRIPT = join(ROOT, 'test/helpers/intent-worker-process.ts');
const TSX = import.meta.resolve('tsx');

/**
 * Distributed mode's queue as its processes hold it, on the real Redis: each call opens an
 * installation of its own (a prefix under this file's), with the coordinator's connection
 * and queue, and workers each on a connection of their own, as separate processes would
 * be. After the file every key under the file's prefix is deleted (never FLUSHALL: other
 * tests and agents share this Redis).
 */
export function intentQueues(): () => Promise<IntentQueueUnderTest> {
  const filePrefix = `evsync-test-iq-${randomBytes(4).toString('hex')}`;
  let opened = 0;
  afterAll(async () => {
    const redis = await openRedis(SERVICES.redis.url, 'client');
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${filePrefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
    redis.disconnect();
  });
  return async () => {
    const prefix = `${filePrefix}-${(opened += 1)}`;
    const connections: Redis[] = [];
    const connect = async (role: 'client' | 'worker'): Promise<Redis> => {
      const redis = await openRedis(SERVICES.redis.url, role);
      connections.push(redis);
      return redis;
    };
    const coordinator = await connect('client');
    const producer = new IntentQueue(coordinator, prefix);
    const closers: Array<() => Promise<unknown>> = [];
    return {
      prefix,
      producer,
      queue: producer.queue,
      // As `evsync run` sets it: the bucket, the queue's global concurrency and rate limit.
      setRate: (rate) =>
        setSharedRate(
          coordinator,
          producer,
          platformBucket(prefix, { baseUrl: 'http://127.0.0.1:9', keyId: 1 }),
          rate,
        ),
      startWorker: async (options) => {
        const worker = startIntentWorker({ ...options, connection: await connect('worker'), prefix });
        // Left to a test's `close` if it closed it; else forced, a handler may still wait.
        closers.push(() => worker.close(true));
        await worker.waitUntilReady();
        return worker;
      },
      spawnWorker: () => spawnWorker(prefix, closers),
      close: async () => {
        await Promise.allSettled(closers.map((close) => close()));
        await producer.close();
        for (const redis of connections) redis.disconnect();
      },
    };
  };
}

/** `intent-worker-process.ts` in a process of its own: a worker that can be killed. */
async function spawnWorker(prefix: string, closers: Array<() => Promise<unknown>>): Promise<SpawnedWorker> {
  const child = spawn(process.execPath, ['--import', TSX, WORKER_SCRIPT, SERVICES.redis.url, prefix], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  closers.push(kill);
  const taken: string[] = [];
  const takenWaiters: Array<() => void> = [];
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === 'ready') resolve();
      else if (line.startsWith('taken ')) {
        taken.push(line.slice('taken '.length));
        takenWaiters.splice(0).forEach((wake) => wake());
      }
    });
    child.once('exit', (code) => reject(new Error(`the worker process exited early (${code})`)));
  });
  return {
    taken,
    nextTaken: () => new Promise((resolve) => takenWaiters.push(resolve)),
    kill,
  };
}
