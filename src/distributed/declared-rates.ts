import type { Redis } from 'ioredis';
import { RedisRateLimiter, type SharedRate } from './redis-rate-limiter.js';

/**
 * The rate in force for a platform key when several jobs send with it at once
 * (docs/distributed.md, "One rate limit"): each run, resume or retry declares its job's
 * `rate.per_second` and `rate.concurrency` for the key's bucket while it goes, and the bucket
 * and the key's lane follow the lowest declarations alive, so a job that asks more never raises
 * the limits a slower job of the same key set. A declaration lives as long as its process
 * refreshes it.
 */
export interface RateDeclaration {
  job: string;
  requestsPerSecond: number;
  /** The job's `rate.concurrency`; absent in declarations of releases before lanes. */
  concurrency?: number;
  /** Epoch ms after which a declaration its process stopped refreshing no longer counts. */
  expiresAt: number;
}

const declaredKey = (bucket: string): string => `${bucket}:declared`;
/** A declaration not refreshed for this long (its process died) no longer counts. */
export const DECLARATION_TTL_MS = 60_000;

/** What is in force for a bucket, and why: the declarations alive, lowest first. */
export interface RateInForce {
  rate: SharedRate;
  /** The lowest concurrency declared alive: the lane's global concurrency. */
  concurrency: number | undefined;
  declared: RateDeclaration[];
}

/** Declares (or refreshes) `declarer`'s rate for `bucket` and sets the lowest alive in force; returns it. */
export async function declareRate(
  redis: Redis,
  bucket: string,
  declarer: string,
  declaration: Omit<RateDeclaration, 'expiresAt'>,
  now = Date.now(),
): Promise<RateInForce> {
  await redis.hset(
    declaredKey(bucket),
    declarer,
    JSON.stringify({ ...declaration, expiresAt: now + DECLARATION_TTL_MS }),
  );
  return applyLowest(redis, bucket, now);
}

/** Withdraws a declaration; the lowest of those left comes in force (none left: the rate stays). */
export async function withdrawRate(redis: Redis, bucket: string, declarer: string): Promise<RateInForce> {
  await redis.hdel(declaredKey(bucket), declarer);
  return applyLowest(redis, bucket, Date.now());
}

/** The declarations alive for a bucket, lowest rate first; expired ones are removed. */
export async function declarations(
  redis: Redis,
  bucket: string,
  now = Date.now(),
): Promise<RateDeclaration[]> {
  const all = await redis.hgetall(declaredKey(bucket));
  const alive: RateDeclaration[] = [];
  const expired: string[] = [];
  for (const [declarer, text] of Object.entries(all)) {
    const declaration = parse(text);
    if (declaration === undefined || declaration.expiresAt < now) expired.push(declarer);
    else alive.push(declaration);
  }
  if (expired.length > 0) await redis.hdel(declaredKey(bucket), ...expired);
  return alive.sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
}

async function applyLowest(redis: Redis, bucket: string, now: number): Promise<RateInForce> {
  const alive = await declarations(redis, bucket, now);
  const lowest = alive[0];
  if (lowest !== undefined) {
    await RedisRateLimiter.setRate(redis, bucket, {
      requestsPerSecond: lowest.requestsPerSecond,
      burst: Math.ceil(lowest.requestsPerSecond / 1000),
    });
  }
  const rate = (await RedisRateLimiter.rateInForce(redis, bucket)) ?? { requestsPerSecond: 0, burst: 1 };
  const concurrencies = alive.flatMap((d) => (d.concurrency === undefined ? [] : [d.concurrency]));
  const concurrency = concurrencies.length > 0 ? Math.min(...concurrencies) : undefined;
  return { rate, concurrency, declared: alive };
}

function parse(text: string): RateDeclaration | undefined {
  try {
    const value = JSON.parse(text) as Partial<RateDeclaration>;
    return typeof value.requestsPerSecond === 'number' && typeof value.expiresAt === 'number'
      ? {
          job: String(value.job ?? '?'),
          requestsPerSecond: value.requestsPerSecond,
          ...(typeof value.concurrency === 'number' ? { concurrency: value.concurrency } : {}),
          expiresAt: value.expiresAt,
        }
      : undefined;
  } catch {
    return undefined;
  }
}
