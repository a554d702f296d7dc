import { Redis, type RedisOptions } from 'ioredis';
import { CODE } from '../../errors/codes.js';
import { EvsyncError, messageOf } from '../../errors/evsync-error.js';
import { redactUrl } from '../../log/redaction.js';

/**
 * What a connection is for:
 * - `client` (a producer's commands): fails fast when Redis is down, so a command line
 *   process reports it instead of hanging;
 * - `worker` and `blocking` (a BullMQ Worker, QueueEvents): wait out a Redis restart,
 *   which BullMQ requires of blocking connections (`maxRetriesPerRequest: null`).
 */
export type RedisRole = 'client' | 'worker' | 'blocking';

/** A Redis that cannot be reached, or that stopped answering (`code` tells which). */
export class QueueConnectionError extends EvsyncError {
  override readonly name = 'QueueConnectionError';
}

const OPTIONS: Record<RedisRole, RedisOptions> = {
  client: { maxRetriesPerRequest: 1, connectTimeout: 5000, enableAutoPipelining: true },
  // No auto-pipelining: a worker's commands rarely share a tick, and each auto-pipeline
  // copies every script BullMQ defines onto a new Pipeline (about a tenth of its CPU).
  worker: { maxRetriesPerRequest: null },
  blocking: { maxRetriesPerRequest: null },
};

/** Opens a connection for `role` and waits until it answers; a typed error if it cannot. */
export async function openRedis(redisUrl: string, role: RedisRole): Promise<Redis> {
  const redis = new Redis(redisUrl, { ...OPTIONS[role], lazyConnect: true });
  // Failures surface on the commands that fail; the connection's own events go nowhere.
  redis.on('error', () => undefined);
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new QueueConnectionError(
      `Redis at ${redactUrl(redisUrl)} cannot be reached (${messageOf(error)}). ` +
        'Start it, or fix REDIS_URL; unset REDIS_URL to run in one process.',
      { code: CODE.EVSYNC_QUEUE_UNREACHABLE, retryable: true, cause: error },
    );
  }
  return redis;
}

/**
 * `error` as a `QueueConnectionError` when the connection is why it failed (Redis went
 * away mid-operation), else `error` itself: a refused job id is no connection problem.
 */
export function connectionErrorOf(redis: Redis, what: string, error: unknown): Error {
  if (error instanceof QueueConnectionError || redis.status === 'ready')
    return error instanceof Error ? error : new Error(messageOf(error));
  return new QueueConnectionError(
    `Redis stopped answering while ${what} (${messageOf(error)}). ` +
      'Check Redis, then `evsync resume RUN` enqueues again what has no result.',
    { code: CODE.EVSYNC_QUEUE_LOST, retryable: true, cause: error },
  );
}
