import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { RequestLimiter } from '../platform/rate-limiter.js';

/**
 * The platform's one rate limit, kept in Redis so that every worker on every machine draws
 * from the same bucket (docs/distributed.md, "One rate limit"). An acquire reserves the next
 * free slot of a GCRA schedule in one script call and sleeps until it: no polling, so the
 * limit is used to the full with any number of processes. Acquires that wait together share
 * one call, and when the rate is high a call reserves a few slots more, which this process's
 * next acquires take within `LEASE_VALID_MS` of their time: most requests then cost no round
 * trip, and none starts further from its slot than that. A 429 pauses the bucket for its
 * `Retry-After`, drops the slots reserved ahead and cuts the rate, which then recovers
 * linearly, as the in-process limiter does.
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

/** {@link SharedRate} with what the platform's 429s left of it now (`rateNow`). */
export interface RateNow extends SharedRate {
  /** The rate the workers follow now: below `requestsPerSecond` after a 429, while it recovers. */
  currentRequestsPerSecond: number;
  /** How long a 429's `Retry-After` still pauses the key. */
  pausedForMs: number;
}

/** A cut rate's recovery, a share of the rate set per second (from half to full in 10 s). */
const DEFAULT_RECOVERY_PER_SECOND = 0.05;

// KEYS[1] the bucket hash. ARGV: slowdown factor, min rate share, recovery per ms (share),
// mode ('acquire' | 'slow'), then the slots wanted (acquire) or the retry-after ms (slow).
// State fields: rate, burst (settings), tat (the theoretical arrival time of the next
// request), paused (until), cut_rate, cut_at.
// Returns {current rate × 1000, cut (0|1), then the wait in ms before each slot reserved}.
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
  return {math.floor(rate_at(now) * 1000), cut}
end
local start = math.max(now, paused)
local rate = rate_at(start)
local interval = 1000 / rate
local out = {math.floor(rate * 1000), 0}
for i = 1, math.min(1000, math.max(1, tonumber(ARGV[5]))) do
  local base = math.max(tat, start)
  out[#out + 1] = math.ceil(math.max(start, base - (burst - 1) * interval) - now)
  tat = base + interval
end
redis.call('HSET', KEYS[1], 'tat', tat)
redis.call('PEXPIRE', KEYS[1], 86400000)
return out
`;

/**
 * How long after its time a slot reserved ahead may still be taken: a request started
 * later than its slot crowds the next ones, so the platform sees at most this much of a
 * burst above its limit. It also bounds the look-ahead: slots for this long at the rate.
 */
const LEASE_VALID_MS = 20;

type Release = () => void;

interface LimiterCommands {
  evsyncRateLimit(
    key: string,
    factor: number,
    minShare: number,
    recoveryPerMs: number,
    mode: 'acquire' | 'slow',
    slotsOrRetryAfterMs: number,
  ): Promise<number[]>;
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
  /** Slot times (`performance.now()`) reserved ahead and not taken yet, earliest first. */
  private leased: number[] = [];
  /** Acquires waiting for the script call under way. */
  private readonly waiting: Array<{ grant: (at: number) => void; fail: (error: unknown) => void }> = [];
  private reserving = false;

  constructor(options: RedisRateLimiterOptions) {
    this.key = options.key;
    this.concurrency = Math.max(1, Math.floor(options.concurrency));
    this.factor = options.slowdownFactor ?? 0.5;
    this.minShare = options.minRateShare ?? 0.1;
    this.recoveryPerMs = (options.recoveryPerSecond ?? DEFAULT_RECOVERY_PER_SECOND) / 1000;
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

  /**
   * The settings in force and what the platform's 429s left of them now, as the script
   * computes a slot's rate (with the default recovery every worker's limiter uses): what
   * `evsync status` shows of a lane, whose workers follow this rate, not the one set.
   */
  static async rateNow(redis: Redis, key: string): Promise<RateNow | undefined> {
    const [[rate, burst, paused, cutRate, cutAt], [seconds, micros]] = await Promise.all([
      redis.hmget(key, 'rate', 'burst', 'paused', 'cut_rate', 'cut_at'),
      redis.time(),
    ]);
    if (rate == null) return undefined;
    const max = Number(rate);
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const pausedUntil = Number(paused ?? 0);
    const since = Math.max(0, now - Math.max(Number(cutAt ?? -1e15), pausedUntil));
    const current = Math.min(
      max,
      Number(cutRate ?? max) + since * (DEFAULT_RECOVERY_PER_SECOND / 1000) * max,
    );
    return {
      requestsPerSecond: max,
      burst: Number(burst ?? 1),
      currentRequestsPerSecond: current,
      pausedForMs: Math.max(0, pausedUntil - now),
    };
  }

  get currentRate(): number {
    return this.rate;
  }

  async acquire(signal?: AbortSignal): Promise<Release> {
    await this.takeSlot(signal);
    try {
      const waitMs = (await this.nextSlot()) - performance.now();
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
    // Reserved before the 429: taken now, they would start inside the pause.
    this.leased = [];
    // The pause is shared through Redis; the caller's own retry waits `retryAfterMs` too, so
    // the answer (whether this call cut the rate, for the log) may come late or not at all.
    void this.redis
      .evsyncRateLimit(this.key, this.factor, this.minShare, this.recoveryPerMs, 'slow', retryAfterMs)
      .then(([rateMilli]) => {
        this.rate = (rateMilli ?? 0) / 1000;
      })
      .catch(() => undefined);
    return true;
  }

  /** When the next request may start: a slot reserved ahead, or one reserved now. */
  private nextSlot(): Promise<number> {
    const now = performance.now();
    while (this.leased.length > 0 && this.leased[0]! + LEASE_VALID_MS < now) this.leased.shift();
    const slot = this.leased.shift();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise((grant, fail) => {
      this.waiting.push({ grant, fail });
      if (!this.reserving) void this.reserve();
    });
  }

  /** Reserves slots for the acquires waiting, and a few ahead when the rate allows. */
  private async reserve(): Promise<void> {
    this.reserving = true;
    while (this.waiting.length > 0) {
      const ahead = Math.min(this.concurrency - 1, Math.floor((this.rate * LEASE_VALID_MS) / 1000));
      try {
        const [rateMilli = 0, , ...waits] = await this.redis.evsyncRateLimit(
          this.key,
          this.factor,
          this.minShare,
          this.recoveryPerMs,
          'acquire',
          this.waiting.length + Math.max(0, ahead),
        );
        const now = performance.now();
        this.rate = rateMilli / 1000;
        for (const wait of waits) {
          const waiter = this.waiting.shift();
          if (waiter) waiter.grant(now + wait);
          else this.leased.push(now + wait);
        }
      } catch (error) {
        for (const waiter of this.waiting.splice(0)) waiter.fail(error);
      }
    }
    this.reserving = false;
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
