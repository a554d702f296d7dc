import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { platformConfigFor } from '../config/conference.js';
import type { PlatformConfig } from '../config/env-config.js';
import type { Logger } from '../log/logger.js';
import { PlatformClient } from '../platform/platform-client.js';
import { openRedis } from '../sync/queue/redis-connection.js';
import type { JobFile } from '../sync/job-file.js';
import { openEngine, type OpenEngine, type OpenEngineOptions } from '../sync/runs/open-engine.js';
import { distributedConfigFromEnv, type DistributedConfig } from './distributed-config.js';
import { distributedExecutor } from './distributed-executor.js';
import { IntentQueue } from './intent-queue.js';
import { rateLimitKey, RedisRateLimiter } from './redis-rate-limiter.js';

/** A Redis connection for distributed mode (see `openRedis`: a worker's waits out a restart). */
export function connectRedis(config: DistributedConfig, role: 'worker' | 'client'): Promise<Redis> {
  return openRedis(config.redisUrl, role);
}

/** The rate-limit bucket of the platform key: one per base URL and key id, whatever the job. */
export function platformBucket(prefix: string, platform: Pick<PlatformConfig, 'baseUrl' | 'keyId'>): string {
  const id = createHash('sha256')
    .update(`${platform.baseUrl}\u0000${platform.keyId}`)
    .digest('hex')
    .slice(0, 16);
  return rateLimitKey(prefix, id);
}

/** Sets the job's rate for every worker: the request bucket, and the queue's global limits. */
export async function setSharedRate(
  redis: Redis,
  queue: IntentQueue,
  bucket: string,
  rate: JobFile['rate'],
): Promise<void> {
  await RedisRateLimiter.setRate(redis, bucket, {
    requestsPerSecond: rate.per_second,
    burst: Math.ceil(rate.per_second / 1000),
  });
  await queue.setConcurrency(rate.concurrency);
  await queue.queue.setGlobalRateLimit(rate.per_second, 1000);
}

/**
 * The engine `run`, `resume` and `retry` use: in one process (`openEngine`), or, when
 * `REDIS_URL` is set, one that hands the work to `evsync worker` processes through Redis
 * and draws its own calls (mirror deletes of users and events) from the shared bucket.
 */
export async function openEngineForEnv(
  options: OpenEngineOptions & { rate: JobFile['rate']; logger: Logger },
): Promise<OpenEngine & { mode: 'inline' | 'distributed' }> {
  const config = options.client ? undefined : distributedConfigFromEnv();
  if (config === undefined) return { ...(await openEngine(options)), mode: 'inline' };
  const platformConfig = platformConfigFor(options.platform);
  const redis = await connectRedis(config, 'client');
  const queue = new IntentQueue(redis, config.prefix);
  const bucket = platformBucket(config.prefix, platformConfig);
  let client: PlatformClient | undefined;
  try {
    await setSharedRate(redis, queue, bucket, options.rate);
    client = PlatformClient.fromConfig(platformConfig, {
      rateLimit: new RedisRateLimiter({ redis, key: bucket, concurrency: options.rate.concurrency }),
      logger: options.logger,
    });
    const engine = await openEngine({ ...options, client });
    engine.deps.executor = distributedExecutor({
      ledger: engine.deps.ledger,
      ledgerId: await engine.deps.ledger.ledgerId(),
      sink: queue,
      restoreSettings: () => setSharedRate(redis, queue, bucket, options.rate),
    });
    options.logger.info(
      { redis: config.description, prefix: config.prefix },
      'distributed mode: workers send the intents',
    );
    return {
      mode: 'distributed',
      deps: engine.deps,
      close: async () => {
        await engine.close();
        await client?.close();
        await queue.close();
        redis.disconnect();
      },
    };
  } catch (error) {
    await client?.close();
    await queue.close();
    redis.disconnect();
    throw error;
  }
}
