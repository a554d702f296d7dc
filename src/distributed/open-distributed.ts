import { createHash } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import { platformConfigFromEnv, type PlatformConfig } from '../config/env-config.js';
import { CODE } from '../errors/codes.js';
import { ConfigError } from '../errors/evsync-error.js';
import type { Logger } from '../log/logger.js';
import { PlatformClient } from '../platform/platform-client.js';
import type { JobFile } from '../sync/job-file.js';
import { openEngine, type OpenEngine, type OpenEngineOptions } from '../sync/runs/open-engine.js';
import { distributedConfigFromEnv, type DistributedConfig } from './distributed-config.js';
import { distributedExecutor } from './distributed-executor.js';
import { IntentQueue } from './intent-queue.js';
import { rateLimitKey, RedisRateLimiter } from './redis-rate-limiter.js';

/**
 * A Redis connection. Workers block on Redis and must wait out a restart, so their
 * commands retry for ever (`maxRetriesPerRequest: null`, as BullMQ requires); a command
 * line process fails at once when Redis cannot be reached.
 */
export async function connectRedis(config: DistributedConfig, role: 'worker' | 'client'): Promise<Redis> {
  const options: RedisOptions =
    role === 'worker'
      ? // Commands of one tick go out in one write: a worker issues many small ones per job.
        { maxRetriesPerRequest: null, lazyConnect: true, enableAutoPipelining: true }
      : { maxRetriesPerRequest: 1, lazyConnect: true, connectTimeout: 5000, enableAutoPipelining: true };
  const redis = new Redis(config.redisUrl, options);
  // Errors surface on the commands that fail; the connection's own events are logged by no one.
  redis.on('error', () => undefined);
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new ConfigError(
      `Redis at ${config.description} cannot be reached (${error instanceof Error ? error.message : String(error)}). ` +
        'Start it, or fix REDIS_URL; unset REDIS_URL to run in one process.',
      { code: CODE.EVSYNC_QUEUE_UNREACHABLE, cause: error },
    );
  }
  return redis;
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
  const platformConfig = platformConfigFromEnv();
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
    engine.deps.executor = distributedExecutor({ ledger: engine.deps.ledger, sink: queue });
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
