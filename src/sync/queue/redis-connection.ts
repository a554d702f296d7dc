import { Redis, type RedisOptions } from 'ioredis';
import { CODE } from '../../errors/codes.js';
import { EvsyncError, messageOf } from '../../errors/evsync-error.js';
import { redactUrl } from '../../log/redaction.js';

/**
 * What a connection is for:
 * - `client` (a producer's commands): fails fast when Redis is down, so a command line
 *   process reports it instead of hanging;
 * - `worker` (a BullMQ Worker): waits out a Redis restart, which BullMQ requires of
 *   blocking connections (`maxRetriesPerRequest: null`).
 */
export type RedisRole = 'client' | 'worker';

/** A Redis that cannot be reached. */
export class QueueConnectionError extends EvsyncError {
  override readonly name = 'QueueConnectionError';
}

const OPTIONS: Record<RedisRole, RedisOptions> = {
  client: { maxRetriesPerRequest: 1, connectTimeout: 5000, enableAutoPipelining: true },
  // No auto-pipelining: a worker's commands rarely share a tick, and each auto-pipeline
  // copies every script BullMQ defines onto a new Pipeline (about a tenth of its CPU).
  worker: { maxRetriesPerRequest: null },
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

/** Codes of a connection Redis dropped or refused. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);

/**
 * Whether an error means Redis stopped answering: a `client` connection gave a command up
 * (`MaxRetriesPerRequestError`), or the connection was refused, reset or closed.
 */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  const code = (error as NodeJS.ErrnoException).code;
  return (code !== undefined && CONNECTION_CODES.has(code)) || /Connection is closed/.test(error.message);
}
