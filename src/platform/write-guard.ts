import { AsyncLocalStorage } from 'node:async_hooks';
import { StaleWriteError } from './platform-error.js';
import type { PlatformRequest, PlatformResponse, SendRequest } from './platform-request.js';
import { callSiteOf } from './platform-request.js';

/**
 * Why a write may no longer be sent, or undefined when it may: asked right before each
 * attempt of each write, after the rate limiter (docs/distributed.md, "A worker paused past
 * its lock").
 */
export type WriteCheck = () => Promise<string | undefined>;

const checks = new AsyncLocalStorage<WriteCheck>();

/** Runs `work` with `check` asked before each platform write it makes, however deep. */
export function withWriteCheck<T>(check: WriteCheck, work: () => Promise<T>): Promise<T> {
  return checks.run(check, work);
}

/**
 * The write-guard layer: a write (any method but GET) made under `withWriteCheck` is sent
 * only if its check passes; else it fails with `StaleWriteError`, nothing sent. Reads,
 * and calls made outside, pass as they are.
 */
export function guardedWrites(send: SendRequest): SendRequest {
  const checkThenSend = async (request: PlatformRequest, check: WriteCheck): Promise<PlatformResponse> => {
    const why = await check();
    if (why !== undefined) throw new StaleWriteError(callSiteOf(request), why);
    return send(request);
  };
  // Not an async function: a call with nothing to check (every call of an inline run) goes
  // straight down, without a promise and a turn of its own.
  return (request: PlatformRequest) => {
    const check = request.method === 'GET' ? undefined : checks.getStore();
    return check === undefined ? send(request) : checkThenSend(request, check);
  };
}
