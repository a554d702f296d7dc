import { CODE } from '../../errors/codes.js';
import type { ResultAction } from '../../model/result-records.js';
import { EvsyncError, isEvsyncError, messageOf } from '../../errors/evsync-error.js';
import { PLATFORM_ERROR_CODES, PlatformHttpError, isPlatformError } from '../../platform/platform-error.js';

/** How one intent ended, before it becomes a ledger result. */
export interface ProcessOutcome {
  action: ResultAction;
  platformId?: number | null;
  httpStatus?: number | null;
  errorCode?: string | null;
  /** For failures, the platform's message; for successes, a note worth keeping (e.g. "answer lost, reconciled"). */
  message?: string | null;
  /** Platform calls made for this intent (the client's own retries are inside one call). */
  attempts: number;
  /**
   * The hash of what was sent, when it is not the plan's (a schedule sent without events
   * that are missing): written as the synced hash, so the next run sends it again.
   */
  hash?: string;
  /** A user key refused as now another person: held from every job's dependents (`phases/key-holds.ts`). */
  heldKey?: string;
  /**
   * A merged user's other client_ids that its account holds, when the platform refused to add
   * some (`remember`: another user has them): only these are recorded in the id map and let
   * the user's dependents through. Absent, all of the intent's aliases.
   */
  aliases?: readonly string[];
}

/**
 * A user refused because its key now names another person than the one its platform account
 * is (`EVSYNC_KEY_NOW_ANOTHER_PERSON`), or than the one a run removed from the conference,
 * whose account keeps the key (`EVSYNC_KEY_OF_REMOVED_PERSON`): the run holds that key (a
 * merged person's alias, or the row's own), so that no job sends the key's links to the
 * account, there now or once its person is back (docs/sync-engine.md, "Who is who").
 */
export class KeyOfAnotherPersonError extends EvsyncError {
  override readonly name = 'KeyOfAnotherPersonError';
  constructor(
    message: string,
    readonly key: string,
    code:
      | typeof CODE.EVSYNC_KEY_NOW_ANOTHER_PERSON
      | typeof CODE.EVSYNC_KEY_OF_REMOVED_PERSON = CODE.EVSYNC_KEY_NOW_ANOTHER_PERSON,
  ) {
    super(message, { code });
  }
}

/** Counts the calls a processor makes, so the ledger can show them. */
export class CallCounter {
  calls = 0;

  /** Not an async function: the call's own promise is the answer, with none around it. */
  call<T>(promise: () => Promise<T>): Promise<T> {
    this.calls += 1;
    try {
      return promise();
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- whatever the call threw, as an async function would
      return Promise.reject(error);
    }
  }

  done(action: ResultAction, extra: Omit<ProcessOutcome, 'action' | 'attempts'> = {}): ProcessOutcome {
    return { action, attempts: Math.max(this.calls, action === 'unchanged' ? 0 : 1), ...extra };
  }
}

/**
 * A failure that ends the intent. Rate-limit waits never get here (the client waits and
 * retries them); retryable errors arrive only after the client's retries ran out.
 */
export function failureOutcome(error: unknown, calls: number): ProcessOutcome {
  // The last call's tries count, not just the call: a 500 retried five times is 5 attempts.
  const attempts = isPlatformError(error) ? Math.max(calls, 1) - 1 + error.attempts : calls;
  if (error instanceof PlatformHttpError) {
    return {
      action: 'failed',
      httpStatus: error.status,
      errorCode: error.code,
      message: error.message,
      attempts: Math.max(attempts, 1),
    };
  }
  if (isPlatformError(error) || isEvsyncError(error)) {
    return {
      action: 'failed',
      errorCode: error.code,
      message: error.message,
      attempts: Math.max(attempts, 1),
      ...(error instanceof KeyOfAnotherPersonError ? { heldKey: error.key } : {}),
    };
  }
  return {
    action: 'failed',
    errorCode: CODE.EVSYNC_INTERNAL,
    message: `evsync failed on this intent: ${messageOf(error)}`,
    attempts: Math.max(attempts, 1),
  };
}

export function isStatus(error: unknown, status: number): error is PlatformHttpError {
  return error instanceof PlatformHttpError && error.status === status;
}

export function isOutcomeUnknown(error: unknown): boolean {
  return isPlatformError(error) && error.code === PLATFORM_ERROR_CODES.outcomeUnknown;
}

/** A 422 saying the object is already there ("has already been taken", "already exists"). */
export function isAlreadyThere(error: unknown, param?: string): boolean {
  if (!isStatus(error, 422)) return false;
  const texts = [error.platformMessage ?? ''];
  for (const [name, messages] of Object.entries(error.paramErrors)) {
    if (param === undefined || name === param || name.endsWith(param)) texts.push(...messages);
  }
  return texts.some((text) => /already|taken|exists/i.test(text));
}
