import { CODE, type ErrorCode } from '../../errors/codes.js';
import { messageOf } from '../../errors/evsync-error.js';
import type { Logger } from '../../log/logger.js';
import { redactUrl } from '../../log/redaction.js';
import { totalsOf, type RunResultCounts } from '../../model/result-records.js';
import { isPlatformError } from '../../platform/platform-error.js';
import type { SyncPlatform } from '../processors/sync-platform.js';
import { PLATFORM_DOWN_CODES } from './platform-down.js';

/** Why a run's closing check of the platform failed: a platform-wide cause, as a streak names it. */
export interface PlatformCheckFailure {
  code: ErrorCode;
  reason: string;
}

/** Actions that only an answer of the platform records: a run that has one knows it is up. */
const ANSWERED_ACTIONS = ['created', 'attached', 'updated', 'deleted', 'retired'] as const;

/**
 * Whether the run must check the platform before it says `completed`: it got no answer that
 * proves the platform up and our key accepted (docs/notifications.md, "A quiet night").
 * A night with nothing to send would otherwise complete through an outage or a revoked key,
 * and nobody would be told; Hightouch and Census test the destination at every sync too.
 */
export function needsPlatformCheck(counts: RunResultCounts): boolean {
  return !Object.values(counts).some((actions) =>
    ANSWERED_ACTIONS.some((action) => (actions?.[action] ?? 0) > 0),
  );
}

/**
 * What to do after a run the closing check stopped: with no failed result, it had nothing
 * left to send, and a resume would find nothing; the next run sends what changes by then.
 * Undefined when a resume has intents to send again.
 */
export function afterFailedCheck(counts: RunResultCounts): string | undefined {
  return (totalsOf(counts).failed ?? 0) > 0
    ? undefined
    : 'Fix the cause, then let the job run again: this run had nothing left to send, so there is nothing to resume.';
}

/**
 * One signed read (`GET /signature_test`, spec §5) through the run's own client, retries
 * included. Resolves to why it failed when the platform cannot be reached, refuses the
 * signature, fails (5xx) or loses the answer — the causes that stop a run in a streak —
 * and to undefined when it answered, or when the platform has no such call (a fake).
 * Another kind of failure (a 404 of a proxy) is logged, not called an outage.
 */
export async function checkPlatform(
  platform: SyncPlatform,
  logger?: Logger,
): Promise<PlatformCheckFailure | undefined> {
  if (platform.signatureTest === undefined) return undefined;
  try {
    const verdict = await platform.signatureTest();
    if (verdict.valid !== false) return undefined;
    return refused(verdict.problem ?? 'no reason given');
  } catch (error) {
    const message = redactUrl(messageOf(error));
    if (!isPlatformError(error) || !PLATFORM_DOWN_CODES.includes(error.code)) {
      logger?.warn({ error: message }, 'the check of the platform failed in an unexpected way');
      return undefined;
    }
    if (error.code === CODE.EVSYNC_PLATFORM_UNAUTHORIZED) return refused(message);
    return { code: error.code, reason: CHECK_FAILED[error.code]?.(message) ?? message };
  }
}

function refused(problem: string): PlatformCheckFailure {
  return {
    code: CODE.EVSYNC_PLATFORM_UNAUTHORIZED,
    reason:
      `the platform refused the signature of its check (${problem}): the key may have been revoked or ` +
      'replaced. Check EVSYNC_KEY_ID and EVSYNC_SIGNING_KEY (`evsync ping` tests them)',
  };
}

const CHECK_FAILED: Readonly<Record<string, (message: string) => string>> = {
  [CODE.EVSYNC_PLATFORM_UNREACHABLE]: (message) =>
    `the platform could not be reached for its check (${message})`,
  [CODE.EVSYNC_PLATFORM_SERVER]: (message) =>
    `the platform failed (5xx) its check, after its retries (${message}): it may be down or overloaded`,
  [CODE.EVSYNC_PLATFORM_OUTCOME_UNKNOWN]: (message) =>
    `the platform's answers to its check were lost (${message}): the network or the platform is failing`,
};
