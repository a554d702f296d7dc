import type { Logger } from '../log/logger.js';
import {
  OutcomeUnknownError,
  PlatformClientClosedError,
  PlatformError,
  PlatformHttpError,
  RateLimitedError,
} from './platform-error.js';
import type { PlatformRequest, SendRequest } from './platform-request.js';
import { callSiteOf, isIdempotent } from './platform-request.js';

/** Plain data, like undici's retry interceptor options. */
export interface RetryPolicy {
  /**
   * Tries in all, the first included. Waits for a 429 do not count.
   * @defaultValue 5
   */
  maxAttempts: number;
  /** @defaultValue 250 */
  baseDelayMs: number;
  /** @defaultValue 30000 */
  maxDelayMs: number;
  /**
   * 429 waits allowed for one call before its `RateLimitedError` is surfaced.
   * @defaultValue 20
   */
  maxRateLimitWaits: number;
  /**
   * A `Retry-After` longer than this is surfaced instead of waited for.
   * @defaultValue 300000 (5 minutes)
   */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 30_000,
  maxRateLimitWaits: 20,
  maxRetryAfterMs: 300_000,
});

export interface RetryHooks {
  logger?: Logger;
  /** @defaultValue a `setTimeout` promise, cut short by `signal` */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Ends every wait between tries; the call then fails with `EVSYNC_PLATFORM_CLOSED`. */
  signal?: AbortSignal;
  /** @defaultValue `Math.random` */
  random?: () => number;
}

/** Full jitter (AWS architecture blog, "Exponential Backoff And Jitter"): uniform in [0, cap·2^(n-1)]. */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * ceiling);
}

/**
 * Whether another try is safe. A lost answer to a non-idempotent create is never resent
 * blindly: the caller must look the object up first, or it may exist twice.
 */
export function shouldRetry(error: unknown, request: PlatformRequest): boolean {
  if (!(error instanceof PlatformError) || !error.retryable) return false;
  if (error instanceof OutcomeUnknownError) return isIdempotent(request);
  return true;
}

/** A server error other than 503 (overloaded, nothing done) may come after the work was recorded. */
function mayHaveBeenDone(error: unknown): error is PlatformHttpError {
  return error instanceof PlatformHttpError && error.status >= 500 && error.status !== 503;
}

function outcomeUnknown(
  request: PlatformRequest,
  error: PlatformHttpError,
  attempt: number,
): OutcomeUnknownError {
  const unknown = new OutcomeUnknownError(
    callSiteOf(request),
    `answered ${error.status}, which may come after it was recorded`,
    {
      status: error.status,
      cause: error,
    },
  );
  unknown.attempts = attempt;
  return unknown;
}

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** The retry layer. The error finally thrown carries `attempts`. */
export function retrying(send: SendRequest, policy: RetryPolicy, hooks: RetryHooks = {}): SendRequest {
  const sleep = hooks.sleep ?? defaultSleep;
  const random = hooks.random ?? Math.random;
  return async (request: PlatformRequest) => {
    let attempt = 1;
    let rateLimitWaits = 0;
    for (;;) {
      try {
        return await send(request);
      } catch (error) {
        if (error instanceof PlatformError) error.attempts = attempt;
        let wait: number;
        if (error instanceof RateLimitedError) {
          rateLimitWaits += 1;
          wait = error.retryAfterMs ?? backoffDelay(rateLimitWaits, policy, random);
          if (rateLimitWaits > policy.maxRateLimitWaits || wait > policy.maxRetryAfterMs) throw error;
        } else {
          if (request.unrepeatable && mayHaveBeenDone(error)) throw outcomeUnknown(request, error, attempt);
          if (attempt >= policy.maxAttempts || !shouldRetry(error, request)) throw error;
          wait = backoffDelay(attempt, policy, random);
          attempt += 1;
        }
        hooks.logger?.debug(
          {
            method: request.method,
            path: request.path,
            code: (error as PlatformError).code,
            attempt,
            waitMs: wait,
          },
          'platform call retried',
        );
        try {
          await sleep(wait, hooks.signal);
        } catch (reason) {
          if (!hooks.signal?.aborted) throw reason;
          const stopped = new PlatformClientClosedError(callSiteOf(request), reason);
          stopped.attempts = attempt;
          throw stopped;
        }
      }
    }
  };
}
