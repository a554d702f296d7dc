import type { Logger } from '../log/logger.js';
import { notePause, noteRateWait } from '../metrics/process-metrics.js';
import { PlatformClientClosedError, RateLimitedError } from './platform-error.js';
import type { PlatformRequest, SendRequest } from './platform-request.js';
import { callSiteOf } from './platform-request.js';
import type { RequestLimiter } from './rate-limiter.js';

/**
 * The rate-limit layer: every attempt takes a token and a slot from the shared limiter,
 * and a 429 slows the limiter down for every caller, not just this one.
 */
export function rateLimited(
  send: SendRequest,
  limiter: RequestLimiter,
  options: { signal?: AbortSignal; logger?: Logger } = {},
): SendRequest {
  const { signal, logger } = options;
  return async (request: PlatformRequest) => {
    const waited = performance.now();
    let release: () => void;
    try {
      release = await limiter.acquire(signal);
    } catch (error) {
      throw signal?.aborted ? new PlatformClientClosedError(callSiteOf(request), error) : error;
    }
    noteRateWait((performance.now() - waited) / 1000);
    try {
      return await send(request);
    } catch (error) {
      if (error instanceof RateLimitedError && limiter.slowDown(error.retryAfterMs ?? 0)) {
        notePause(error.retryAfterMs ?? 0);
        logger?.warn(
          { retryAfterMs: error.retryAfterMs, requestsPerSecond: Number(limiter.currentRate.toFixed(2)) },
          'platform rate limit (429): all calls pause, then resume slower and speed up gradually',
        );
      }
      throw error;
    } finally {
      release();
    }
  };
}
