import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { conferenceUrl, platformConfigFor, platformVariables } from '../config/conference.js';
import { CODE } from '../errors/codes.js';
import { ConfigError } from '../errors/evsync-error.js';
import { conferenceHost } from '../model/conference.js';
import type { PlatformConfig } from '../config/env-config.js';
import { PlatformClient } from '../platform/platform-client.js';
import { openRedis } from '../sync/queue/redis-connection.js';
import type { JobFile } from '../sync/job-file.js';
import { openEngine, type OpenEngine } from '../sync/runs/open-engine.js';
import type { DistributedConfig } from './distributed-config.js';
import type { EngineForEnvOptions } from './engine-for-env.js';
import { distributedExecutor } from './distributed-executor.js';
import { declareRate, withdrawRate } from './declared-rates.js';
import { WORKER_NAME } from './intent-job.js';
import { IntentQueue } from './intent-queue.js';
import { LaneSink } from './lane-sink.js';
import { workerConferences } from './worker-notes.js';
import { laneId, laneQueueName, registerLane } from './lanes.js';
import { rateLimitKey, RedisRateLimiter } from './redis-rate-limiter.js';

/** A Redis connection for distributed mode (see `openRedis`: a worker's waits out a restart). */
export function connectRedis(config: DistributedConfig, role: 'worker' | 'client'): Promise<Redis> {
  return openRedis(config.redisUrl, role);
}

/** The rate-limit bucket of the platform key: one per base URL and key id, whatever the job. */
export function platformBucket(prefix: string, platform: Pick<PlatformConfig, 'baseUrl' | 'keyId'>): string {
  return rateLimitKey(prefix, laneId(platform));
}

/**
 * Sets the job's rate for every worker: the request bucket, and the global limits of its
 * lane's queue (no other conference key's).
 * With `declared`, the job's rate is declared for the key (`declareRate`) and the lowest
 * rate and concurrency any running job declared for it are those in force.
 */
export async function setSharedRate(
  redis: Redis,
  queue: IntentQueue,
  bucket: string,
  rate: JobFile['rate'],
  declared?: { declarer: string; job: string },
): Promise<void> {
  let perSecond = rate.per_second;
  let concurrency = rate.concurrency;
  if (declared === undefined) {
    await RedisRateLimiter.setRate(redis, bucket, {
      requestsPerSecond: rate.per_second,
      burst: Math.ceil(rate.per_second / 1000),
    });
  } else {
    const inForce = await declareRate(redis, bucket, declared.declarer, {
      job: declared.job,
      requestsPerSecond: rate.per_second,
      concurrency: rate.concurrency,
    });
    perSecond = inForce.rate.requestsPerSecond;
    concurrency = inForce.concurrency ?? concurrency;
  }
  await queue.setLimits(perSecond, concurrency);
}

/**
 * Withdraws a finished command's declaration; while other jobs of the key still send, their
 * lowest rate and concurrency hold the lane at once, not at their next refresh.
 */
async function withdrawSharedRate(
  redis: Redis,
  queue: IntentQueue,
  bucket: string,
  declarer: string,
): Promise<void> {
  const left = await withdrawRate(redis, bucket, declarer);
  if (left.declared.length === 0) return;
  await queue.setLimits(left.rate.requestsPerSecond, left.concurrency);
}

/** How often a running command refreshes its rate declaration (well inside `DECLARATION_TTL_MS`). */
const DECLARATION_REFRESH_MS = 20_000;

/**
 * The engine of distributed mode (`openEngineForEnv` chooses it when `REDIS_URL` is set): it
 * hands the work to `evsync worker` processes through Redis and draws its own calls (mirror
 * deletes of users and events) from the shared bucket.
 */
/**
 * A run `--same-conference` records under a conference the ledger knows by another URL
 * (docs/ledger.md, "A conference by another name"). Its lane and rate bucket are its URL's,
 * and a worker checks each job's URL against the run's conference, so no worker ever sent
 * it: the run sat at 0 done for 15 minutes, saying nothing. Refused at once instead.
 */
function refuseConferenceAlias(
  recorded: string | undefined,
  platform: PlatformConfig,
  options: Pick<EngineForEnvOptions, 'platform'>,
): void {
  if (recorded === undefined || recorded === conferenceUrl(platform.baseUrl)) return;
  const variable = platformVariables(options.platform).base_url_env;
  throw new ConfigError(
    `--same-conference does not work in distributed mode: the workers send a run only to its conference's own URL, ${conferenceHost(recorded)}, ` +
      `and ${variable} points at ${conferenceHost(platform.baseUrl)}: nothing was sent. Point ${variable} at ${recorded}, here and in the workers' environment`,
    { code: CODE.EVSYNC_CONFERENCE_ALIAS },
  );
}

export async function openDistributedEngine(
  options: EngineForEnvOptions,
  config: DistributedConfig,
): Promise<OpenEngine & { mode: 'distributed' }> {
  const platformConfig = platformConfigFor(options.platform);
  const redis = await connectRedis(config, 'client');
  // The run's own lane: its key's limits, taken only by workers holding its credentials.
  const queue = new IntentQueue(redis, config.prefix, laneQueueName(laneId(platformConfig)));
  const shared = new IntentQueue(redis, config.prefix);
  const bucket = platformBucket(config.prefix, platformConfig);
  const register = (): ReturnType<typeof registerLane> =>
    registerLane(redis, config.prefix, platformConfig, platformVariables(options.platform));
  let client: PlatformClient | undefined;
  const declared = {
    declarer: `${WORKER_NAME}:${randomBytes(3).toString('hex')}`,
    job: options.jobName ?? 'a job',
  };
  const refresh = setInterval(
    () => void setSharedRate(redis, queue, bucket, options.rate, declared).catch(() => undefined),
    DECLARATION_REFRESH_MS,
  );
  refresh.unref();
  try {
    const lane = await register();
    await setSharedRate(redis, queue, bucket, options.rate, declared);
    client = PlatformClient.fromConfig(platformConfig, {
      rateLimit: new RedisRateLimiter({ redis, key: bucket, concurrency: options.rate.concurrency }),
      logger: options.logger,
    });
    const engine = await openEngine({ ...options, client });
    try {
      refuseConferenceAlias(engine.deps.ledger.conference?.baseUrl, platformConfig, options);
    } catch (error) {
      await engine.close();
      throw error;
    }
    engine.deps.executor = distributedExecutor({
      ledger: engine.deps.ledger,
      ledgerId: await engine.deps.ledger.ledgerId(),
      sink: new LaneSink(queue, shared, lane, () => workerConferences(redis, config.prefix)),
      restoreSettings: async () => {
        await register();
        await setSharedRate(redis, queue, bucket, options.rate, declared);
      },
    });
    options.logger.info(
      { redis: config.description, prefix: config.prefix },
      'distributed mode: workers send the intents',
    );
    return {
      mode: 'distributed',
      deps: engine.deps,
      close: async () => {
        clearInterval(refresh);
        await withdrawSharedRate(redis, queue, bucket, declared.declarer).catch(() => undefined);
        await engine.close();
        await client?.close();
        await Promise.all([queue.close(), shared.close()]);
        redis.disconnect();
      },
    };
  } catch (error) {
    clearInterval(refresh);
    await withdrawSharedRate(redis, queue, bucket, declared.declarer).catch(() => undefined);
    await client?.close();
    await Promise.all([queue.close(), shared.close()]);
    redis.disconnect();
    throw error;
  }
}
