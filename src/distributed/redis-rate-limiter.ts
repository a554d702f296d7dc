import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { RequestLimiter } from '../platform/rate-limiter.js';

/**
 * The platform's one rate limit, kept in Redis so that every worker on every machine draws
 * from the same bucket (docs/distributed.md, "One rate limit"). Each acquire reserves the
 * next free slot of a GCRA schedule in one script call and sleeps until it: no polling,
 * so the limit is used to the full with any number of processes. A 429 pauses the bucket
 * for its `Retry-After` and cuts the rate, which then recovers linearly, as the in-process
 * limiter does.
 */
export interface RedisRateLimiterOptions {
  redis: Redis;
  /** The bucket's key: one per platform key (see `rateLimitKey`). */
  key: string;
  /** Requests in flight at once in this process. */
  concurrency: number;
  /** @defaultValue 0.5 */
  slowdownFactor?: number;
  /** @defaultValue 0.1 */
  minRateShare?: number;
  /** @defaultValue 0.05 (from half to full in 10 s) */
  recoveryPerSecond?: number;
  /** Told of each 429's pause, e.g. to pause the queue's job pickup for as long. */
  onPause?: (retryAfterMs: number) => void;
}

/** The bucket's settings, written by the run that starts (`setRate`) and read by every acquire. */
export interface SharedRate {
  requestsPerSecond: number;
  /** Requests that may start back to back after a quiet spell. */
  burst: number;
}

// KEYS[1] the bucket hash. ARGV: slowdown factor, min rate share, recovery per ms (share),
// mode ('acquire' | 'slow', retry-after ms). State fields: rate, burst (settings), tat (the
// theoretical arrival time of the next request), paused (until), cut_rate, cut_at.
// Returns {wait ms, current rate × 1000, cut (0|1)}.
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local s = redis.call('HMGET', KEYS[1], 'rate', 'burst', 'tat', 'paused', 'cut_rate', 'cut_at')
local max_rate = tonumber(s[1]) or 10
local burst = tonumber(s[2]) or 1
local tat = tonumber(s[3]) or 0
local paused = tonumber(s[4]) or 0
local cut_rate = tonumber(s[5]) or max_rate
local cut_at = tonumber(s[6]) or -1e15
local factor, min_share, recovery = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local function rate_at(at)
  local since = math.max(0, at - math.max(cut_at, paused))
  return math.min(max_rate, cut_rate + since * recovery * max_rate)
end
if ARGV[4] == 'slow' then
  local cut = 0
  if now - cut_at >= 1000 then
    cut_rate = math.max(max_rate * min_share, rate_at(now) * factor)
    cut_at = now
    cut = 1
  end
  paused = math.max(paused, now + math.max(0, tonumber(ARGV[5])))
  tat = math.max(tat, paused)
  redis.call('HSET', KEYS[1], 'tat', tat, 'paused', paused, 'cut_rate', cut_rate, 'cut_at', cut_at)
  return {0, math.floor(rate_at(now) * 1000), cut}
end
local start = math.max(now, paused)
local rate = rate_at(start)
local interval = 1000 / rate
local base = math.max(tat, start)
local slot = math.max(start, base - (burst - 1) * interval)
redis.call('HSET', KEYS[1], 'tat', base + interval)
redis.call('PEXPIRE', KEYS[1], 86400000)
return {math.ceil(slot - now), math.floor(rate * 1000), 0}
`;

type Release = () => void;

interface LimiterCommands {
  evsyncRateLimit(
    key: string,
    factor: number,
    minShare: number,
    recoveryPerMs: number,
    mode: 'acquire' | 'slow',
    retryAfterMs: number,
  ): Promise<[number, number, number]>;
}

/** The bucket key of a platform key: the same for every process that calls it. */
export function rateLimitKey(prefix: string, platformKey: string): string {
  return `${prefix}:rate-limit:${platformKey}`;
}

export class RedisRateLimiter implements RequestLimiter {
  readonly concurrency: number;
  private readonly redis: Redis & LimiterCommands;
  private readonly key: string;
  private readonly factor: number;
  private readonly minShare: number;
  private readonly recoveryPerMs: number;
  private readonly onPause: ((retryAfterMs: number) => void) | undefined;
  private rate = 0;
  private inFlight = 0;
  private readonly slots: Array<() => void> = [];

  constructor(options: RedisRateLimiterOptions) {
    this.key = options.key;
    this.concurrency = Math.max(1, Math.floor(options.concurrency));
    this.factor = options.slowdownFactor ?? 0.5;
    this.minShare = options.minRateShare ?? 0.1;
    this.recoveryPerMs = (options.recoveryPerSecond ?? 0.05) / 1000;
    this.onPause = options.onPause;
    const redis = options.redis as Redis & Partial<LimiterCommands>;
    if (redis.evsyncRateLimit === undefined)
      redis.defineCommand('evsyncRateLimit', { numberOfKeys: 1, lua: SCRIPT });
    this.redis = redis as Redis & LimiterCommands;
  }

  /** Sets the rate every process follows from now on: the job's `rate.per_second`. */
  static async setRate(redis: Redis, key: string, rate: SharedRate): Promise<void> {
    await redis.hset(key, 'rate', rate.requestsPerSecond, 'burst', Math.max(1, Math.floor(rate.burst)));
  }

  /** The settings in force, or undefined when no run has set them. */
  static async rateInForce(redis: Redis, key: string): Promise<SharedRate | undefined> {
    const [rate, burst] = await redis.hmget(key, 'rate', 'burst');
    if (rate == null) return undefined;
    return { requestsPerSecond: Number(rate), burst: Number(burst ?? 1) };
  }

  get currentRate(): number {
    return this.rate;
  }

  async acquire(signal?: AbortSignal): Promise<Release> {
    await this.takeSlot(signal);
    try {
      const [waitMs, rateMilli] = await this.redis.evsyncRateLimit(
        this.key,
        this.factor,
        this.minShare,
        this.recoveryPerMs,
        'acquire',
        0,
      );
      this.rate = rateMilli / 1000;
      // Aborted, it rejects; the client's rate-limit layer reports the call as closed.
      if (waitMs > 0) await sleep(waitMs, undefined, signal ? { signal } : {});
    } catch (error) {
      this.release();
      throw error;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  slowDown(retryAfterMs = 0): boolean {
    if (retryAfterMs > 0) this.onPause?.(retryAfterMs);
    // The pause is shared through Redis; the caller's own retry waits `retryAfterMs` too, so
    // the answer (whether this call cut the rate, for the log) may come late or not at all.
    void this.redis
      .evsyncRateLimit(this.key, this.factor, this.minShare, this.recoveryPerMs, 'slow', retryAfterMs)
      .then(([, rateMilli]) => {
        this.rate = rateMilli / 1000;
      })
      .catch(() => undefined);
    return true;
  }

  private takeSlot(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.inFlight < this.concurrency) {
      this.inFlight += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.slots.indexOf(grant);
        if (index !== -1) this.slots.splice(index, 1);
        reject(signal?.reason as Error);
      };
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.slots.push(grant);
    });
  }

  private release(): void {
    const next = this.slots.shift();
    if (next) next();
    else this.inFlight -= 1;
  }
}
