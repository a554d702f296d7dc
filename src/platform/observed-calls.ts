import { callOutcomeOf, noteCall, type CallOutcome } from '../metrics/process-metrics.js';
import {
  OutcomeUnknownError,
  PlatformHttpError,
  PlatformResponseError,
  PlatformUnreachableError,
} from './platform-error.js';
import type { PlatformRequest, SendRequest } from './platform-request.js';

/**
 * The layer that counts each attempt that reached the wire, by outcome and duration
 * (docs/metrics.md): under the write guard, so a write it dropped is no call.
 */
export function observedCalls(send: SendRequest): SendRequest {
  return async (request: PlatformRequest) => {
    const started = performance.now();
    try {
      const response = await send(request);
      noteCall(callOutcomeOf(response.status), request.method, (performance.now() - started) / 1000);
      return response;
    } catch (error) {
      const outcome = outcomeOfFailure(error);
      if (outcome) noteCall(outcome, request.method, (performance.now() - started) / 1000);
      throw error;
    }
  };
}

function outcomeOfFailure(error: unknown): CallOutcome | undefined {
  if (error instanceof PlatformHttpError) return callOutcomeOf(error.status);
  if (error instanceof OutcomeUnknownError) return 'lost';
  if (error instanceof PlatformUnreachableError) return 'reset';
  // A success whose body was not what the spec shows: the call itself answered.
  if (error instanceof PlatformResponseError) return '2xx';
  return undefined;
}
