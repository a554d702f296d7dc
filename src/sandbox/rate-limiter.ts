/**
 * Requests per second allowed per key_id; a token bucket, so short bursts up to `burst`
 * pass and the long-run rate is `perSecond`.
 */
export interface RateLimitConfig {
  perSecond: number;
  /** @defaultValue `perSecond` (one second's worth) */
  burst?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private config: RateLimitConfig | undefined,
    private readonly now: () => number = () => performance.now(),
  ) {}

  set(config: RateLimitConfig | undefined): void {
    this.config = config;
    this.buckets.clear();
  }

  current(): RateLimitConfig | undefined {
    return this.config;
  }

  take(keyId: string): RateDecision {
    const config = this.config;
    if (!config || config.perSecond <= 0) return { allowed: true };
    const burst = Math.max(1, config.burst ?? config.perSecond);
    const now = this.now();
    const bucket = this.buckets.get(keyId) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * config.perSecond);
    bucket.at = now;
    this.buckets.set(keyId, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    // Retry-After carries whole seconds: round up so a caller that waits it out gets through.
    const seconds = Math.ceil((1 - bucket.tokens) / config.perSecond);
    return { allowed: false, retryAfterSeconds: Math.max(1, seconds) };
  }
}

/** `--rate-limit 50`, `50/s` or `50/s:100` (burst 100). */
export function parseRateLimit(text: string): RateLimitConfig | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:\/s)?\s*(?::\s*(\d+))?\s*$/.exec(text);
  if (!match) return undefined;
  const perSecond = Number(match[1]);
  return match[2] === undefined ? { perSecond } : { perSecond, burst: Number(match[2]) };
}
