import type { BackoffStrategy } from 'bullmq';
import { RetryLater } from './job-outcomes.js';

/** How a job that throws `RetryLater` is tried again. */
export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** The wait after the first failed try; it doubles with each try after. */
  delayMs: number;
  /** No wait is longer, except one a `Retry-After` asks for. */
  maxDelayMs: number;
  /** The share of each wait taken off at random (0 to 1), so retries of many jobs spread out. */
  jitter: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attempts: 5,
  delayMs: 1000,
  maxDelayMs: 60_000,
  jitter: 0.5,
};

/** The name of our strategy in a job's `backoff` option. */
export const BACKOFF_TYPE = 'evsync';

export function retryPolicyOf(policy: Partial<RetryPolicy> = {}): RetryPolicy {
  const merged = { ...DEFAULT_RETRY_POLICY, ...policy };
  const { attempts, delayMs, maxDelayMs, jitter } = merged;
  if (!Number.isInteger(attempts) || attempts < 1)
    throw new RangeError(`retry attempts must be a whole number ≥ 1 (got ${attempts})`);
  if (!(delayMs >= 0 && maxDelayMs >= delayMs))
    throw new RangeError(`retry delays must be 0 ≤ delayMs ≤ maxDelayMs (got ${delayMs}, ${maxDelayMs})`);
  if (!(jitter >= 0 && jitter <= 1)) throw new RangeError(`retry jitter must be within 0..1 (got ${jitter})`);
  return merged;
}

/**
 * The wait before try `attemptsMade + 1`: `delayMs · 2^(attemptsMade − 1)`, capped at
 * `maxDelayMs`, less up to `jitter` of it at random; never shorter than `retryAfterMs`.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  attemptsMade: number,
  retryAfterMs = 0,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(policy.maxDelayMs, policy.delayMs * 2 ** Math.max(0, attemptsMade - 1));
  const jittered = Math.round(exponential * (1 - policy.jitter * random()));
  return Math.max(retryAfterMs, jittered);
}

/** The policy as BullMQ's custom backoff strategy (a worker's `settings.backoffStrategy`). */
export function backoffStrategy(policy: RetryPolicy): BackoffStrategy {
  return (attemptsMade, _type, error) =>
    retryDelayMs(policy, attemptsMade, error instanceof RetryLater ? error.retryAfterMs : undefined);
}
