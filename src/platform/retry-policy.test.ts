import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  OutcomeUnknownError,
  PlatformHttpError,
  PlatformUnreachableError,
  RateLimitedError,
} from './platform-error.js';
import type { PlatformRequest, PlatformResponse, SendRequest } from './platform-request.js';
import type { RetryPolicy } from './retry-policy.js';
import { backoffDelay, DEFAULT_RETRY_POLICY, retrying, shouldRetry } from './retry-policy.js';

const ok: PlatformResponse = { status: 200, headers: {}, body: '{}' };
const get: PlatformRequest = { method: 'GET', path: '/user' };
const post: PlatformRequest = { method: 'POST', path: '/user', body: {} };
const site = { method: 'GET', path: '/user' };
const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000 };

/** A send that fails with the given errors in turn, then succeeds; it records when it was called. */
function scripted(failures: Error[]): SendRequest & { calls: number[] } {
  const calls: number[] = [];
  const send = vi.fn(() => {
    calls.push(Date.now());
    const next = failures.shift();
    return next ? Promise.reject(next) : Promise.resolve(ok);
  });
  return Object.assign(send, { calls });
}

describe('backoffDelay (full jitter)', () => {
  it('is uniform in [0, min(max, base·2^(n-1))]', () => {
    expect(backoffDelay(1, policy, () => 0.999)).toBe(99);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(200);
    expect(backoffDelay(10, policy, () => 0.999)).toBe(999);
    expect(backoffDelay(4, policy, () => 0)).toBe(0);
  });
});

describe('shouldRetry', () => {
  it('retries 5xx, unreachable and 429; not 4xx; unknown outcomes only when idempotent', () => {
    expect(shouldRetry(new PlatformHttpError(site, 503), post)).toBe(true);
    expect(shouldRetry(new PlatformHttpError(site, 422), get)).toBe(false);
    expect(shouldRetry(new PlatformUnreachableError(site, 'ECONNREFUSED'), post)).toBe(true);
    expect(shouldRetry(new OutcomeUnknownError(site, 'reset'), get)).toBe(true);
    expect(shouldRetry(new OutcomeUnknownError(site, 'reset'), { method: 'PUT', path: '/x' })).toBe(true);
    expect(shouldRetry(new OutcomeUnknownError(site, 'reset'), post)).toBe(false);
    expect(shouldRetry(new OutcomeUnknownError(site, 'reset'), { ...post, idempotent: true })).toBe(true);
    expect(shouldRetry(new TypeError('bug'), get)).toBe(false);
  });
});

describe('retrying (fake timers)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('an unrepeatable request (a check-in) is retried only after failures that say it was not done', async () => {
    const checkIn: PlatformRequest = { method: 'POST', path: '/check_in', body: {}, unrepeatable: true };
    const notDone = scripted([
      new PlatformHttpError(site, 503),
      new PlatformUnreachableError(site, 'ECONNREFUSED'),
      new RateLimitedError(site, 10),
    ]);
    const done = retrying(notDone, policy, { random: () => 0 })(checkIn);
    await vi.runAllTimersAsync();
    await expect(done).resolves.toBe(ok);
    expect(notDone).toHaveBeenCalledTimes(4);

    const maybeDone = scripted([new PlatformHttpError(site, 500)]);
    const failed = retrying(maybeDone, policy, { random: () => 0 })(checkIn).catch((e: unknown) => e);
    await vi.runAllTimersAsync();
    expect(await failed).toBeInstanceOf(OutcomeUnknownError);
    expect(await failed).toMatchObject({ code: 'EVSYNC_PLATFORM_OUTCOME_UNKNOWN', status: 500 });
    expect(maybeDone).toHaveBeenCalledTimes(1);
  });

  it('retries 5xx with growing, jittered waits and then succeeds', async () => {
    const send = scripted([
      new PlatformHttpError(site, 500),
      new PlatformHttpError(site, 502),
      new PlatformHttpError(site, 503),
    ]);
    const pending = retrying(send, policy, { random: () => 0.5 })(get);
    await vi.runAllTimersAsync();
    await expect(pending).resolves.toBe(ok);
    // waits: 0.5·100, 0.5·200, 0.5·400
    expect(send.calls).toEqual([0, 50, 150, 350]);
  });

  it('gives up after maxAttempts and says how many were made', async () => {
    const send = scripted(Array.from({ length: 10 }, () => new PlatformHttpError(site, 503)));
    const pending = retrying(send, policy, { random: () => 1 })(get);
    const assertion = expect(pending).rejects.toMatchObject({ status: 503, attempts: 4 });
    await vi.runAllTimersAsync();
    await assertion;
    expect(send.calls).toHaveLength(4);
  });

  it('does not retry a 4xx', async () => {
    const send = scripted([new PlatformHttpError(site, 422)]);
    const pending = retrying(send, policy)(get);
    const assertion = expect(pending).rejects.toMatchObject({ status: 422, attempts: 1 });
    await vi.runAllTimersAsync();
    await assertion;
    expect(send.calls).toHaveLength(1);
  });

  it('waits exactly Retry-After on 429, and those waits are not attempts', async () => {
    const limited = () => new RateLimitedError(site, 2000);
    const send = scripted([
      limited(),
      limited(),
      limited(),
      limited(),
      limited(),
      new PlatformHttpError(site, 500),
    ]);
    const pending = retrying(send, { ...policy, maxAttempts: 2 }, { random: () => 0 })(get);
    await vi.runAllTimersAsync();
    await expect(pending).resolves.toBe(ok);
    expect(send.calls).toEqual([0, 2000, 4000, 6000, 8000, 10000, 10000]);
  });

  it('surfaces a 429 whose Retry-After is too long, or after too many waits', async () => {
    const tooLong = scripted([new RateLimitedError(site, 10 * 60_000)]);
    await expect(retrying(tooLong, policy)(get)).rejects.toBeInstanceOf(RateLimitedError);
    const endless = scripted(Array.from({ length: 50 }, () => new RateLimitedError(site, 10)));
    const pending = retrying(endless, { ...policy, maxRateLimitWaits: 3 })(get);
    const assertion = expect(pending).rejects.toBeInstanceOf(RateLimitedError);
    await vi.runAllTimersAsync();
    await assertion;
    expect(endless.calls).toHaveLength(4);
  });

  it('a 429 without Retry-After backs off with jitter instead', async () => {
    const send = scripted([new RateLimitedError(site, undefined), new RateLimitedError(site, undefined)]);
    const pending = retrying(send, policy, { random: () => 0.5 })(get);
    await vi.runAllTimersAsync();
    await expect(pending).resolves.toBe(ok);
    expect(send.calls).toEqual([0, 50, 150]);
  });

  it('a stop signal ends the wait between tries with a closed error', async () => {
    const controller = new AbortController();
    const send = scripted([new RateLimitedError(site, 60_000)]);
    const pending = retrying(send, policy, { signal: controller.signal })(get);
    const assertion = expect(pending).rejects.toMatchObject({ code: 'EVSYNC_PLATFORM_CLOSED', attempts: 1 });
    await vi.advanceTimersByTimeAsync(1000);
    controller.abort(new Error('stop'));
    await assertion;
    expect(Date.now()).toBe(1000);
    expect(send.calls).toHaveLength(1);
  });

  it('never resends a create whose outcome is unknown', async () => {
    const send = scripted([new OutcomeUnknownError(site, 'ECONNRESET')]);
    const pending = retrying(send, policy)(post);
    const assertion = expect(pending).rejects.toBeInstanceOf(OutcomeUnknownError);
    await vi.runAllTimersAsync();
    await assertion;
    expect(send.calls).toHaveLength(1);
  });

  it('resends an idempotent call whose outcome is unknown, and a create that never left', async () => {
    const lost = scripted([new OutcomeUnknownError(site, 'ECONNRESET')]);
    const pendingGet = retrying(lost, policy)(get);
    const notSent = scripted([new PlatformUnreachableError(site, 'ECONNREFUSED')]);
    const pendingPost = retrying(notSent, policy)(post);
    await vi.runAllTimersAsync();
    await expect(pendingGet).resolves.toBe(ok);
    await expect(pendingPost).resolves.toBe(ok);
    expect(lost.calls).toHaveLength(2);
    expect(notSent.calls).toHaveLength(2);
  });
});
