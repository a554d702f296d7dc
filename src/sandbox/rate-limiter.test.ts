import { describe, expect, it } from 'vitest';
import { RateLimiter, parseRateLimit } from './rate-limiter.js';

describe('RateLimiter', () => {
  it('lets a burst through, then answers with the whole seconds to wait, per key_id', () => {
    let now = 0;
    const limiter = new RateLimiter({ perSecond: 2, burst: 3 }, () => now);
    expect([1, 2, 3].map(() => limiter.take('1').allowed)).toEqual([true, true, true]);
    expect(limiter.take('1')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.take('2').allowed).toBe(true);
    now = 500;
    expect(limiter.take('1').allowed).toBe(true);
    expect(limiter.take('1').allowed).toBe(false);
  });

  it('rounds a long wait up, and does nothing without a config', () => {
    let now = 0;
    const slow = new RateLimiter({ perSecond: 0.25 }, () => now);
    expect(slow.take('k').allowed).toBe(true);
    expect(slow.take('k')).toEqual({ allowed: false, retryAfterSeconds: 4 });
    now = 4_000;
    expect(slow.take('k').allowed).toBe(true);
    const none = new RateLimiter(undefined);
    for (let i = 0; i < 100; i += 1) expect(none.take('k').allowed).toBe(true);
  });

  it('parses 50, 50/s and 50/s:100', () => {
    expect(parseRateLimit('50')).toEqual({ perSecond: 50 });
    expect(parseRateLimit('50/s')).toEqual({ perSecond: 50 });
    expect(parseRateLimit('2.5/s:10')).toEqual({ perSecond: 2.5, burst: 10 });
    expect(parseRateLimit('fast')).toBeUndefined();
  });
});
