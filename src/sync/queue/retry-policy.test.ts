import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RetryLater } from './job-outcomes.js';
import { backoffStrategy, retryDelayMs, retryPolicyOf } from './retry-policy.js';

const policy = retryPolicyOf({ delayMs: 100, maxDelayMs: 1000, jitter: 0.5 });

describe('retryDelayMs', () => {
  it('doubles from delayMs up to maxDelayMs without jitter', () => {
    const exact = { ...policy, jitter: 0 };
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(exact, n))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('takes at most `jitter` of each wait off', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.double({ min: 0, max: 0.999, noNaN: true }), (n, r) => {
        const full = Math.min(1000, 100 * 2 ** (n - 1));
        const wait = retryDelayMs(policy, n, 0, () => r);
        expect(wait).toBeGreaterThanOrEqual(full / 2 - 1);
        expect(wait).toBeLessThanOrEqual(full);
      }),
    );
  });

  it('never waits less than a Retry-After, even past maxDelayMs', () => {
    expect(retryDelayMs(policy, 1, 5000, () => 0)).toBe(5000);
    expect(backoffStrategy(policy)(1, 'evsync', new RetryLater('busy', { retryAfterMs: 3000 }))).toBe(3000);
    expect(backoffStrategy(policy)(1, 'evsync', new Error('other'))).toBeLessThanOrEqual(100);
  });

  it('refuses a policy that cannot work', () => {
    expect(() => retryPolicyOf({ attempts: 0 })).toThrow(/attempts/);
    expect(() => retryPolicyOf({ delayMs: 10, maxDelayMs: 5 })).toThrow(/delays/);
    expect(() => retryPolicyOf({ jitter: 2 })).toThrow(/jitter/);
  });
});
