import { PLATFORM_ERROR_CODES } from '../../platform/platform-error.js';
import type { ProcessOutcome } from '../processors/process-outcome.js';

/**
 * Failures that say nothing about the row and everything about the platform or our key:
 * after the client's retries, the platform could not be reached (nothing was sent), it
 * refused the signature (401, nothing was recorded), it answered 5xx (down or
 * overloaded), or its answers were lost (resets, timeouts). The processors look an object
 * up before creating it again, so sending such an intent again is safe. A streak of them
 * stops the run instead of failing every remaining row after its retries, and `resume`
 * sends such intents again.
 */
const WHY_STOPPED: Readonly<Record<string, (count: number, message: string) => string>> = {
  [PLATFORM_ERROR_CODES.unreachable]: (count, message) =>
    `the platform could not be reached for ${count} intents in a row (${message})`,
  [PLATFORM_ERROR_CODES.unauthorized]: (count, message) =>
    `the platform refused the signature of ${count} intents in a row (${message}). ` +
    'Check EVSYNC_KEY_ID and EVSYNC_SIGNING_KEY (`evsync ping` tests them)',
  [PLATFORM_ERROR_CODES.outcomeUnknown]: (count, message) =>
    `the platform's answers were lost for ${count} intents in a row (${message}). ` +
    'The network or the platform is failing; `evsync ping` tells whether it answers',
  [PLATFORM_ERROR_CODES.server]: (count, message) =>
    `the platform failed (5xx) for ${count} intents in a row, after its retries (${message}). ` +
    'It may be down or overloaded (`evsync ping` tells whether it answers), or failing on these rows ' +
    '(the report of the failed rows shows its answers)',
};

/** Error codes of failures that stop a run in a streak and that `resume` sends again. */
export const PLATFORM_DOWN_CODES: readonly string[] = Object.keys(WHY_STOPPED);

/**
 * Those of them that say so for every row alike: a run too small for the streak stops when
 * all it sent failed this way. A 5xx may be a row's own (a server bug its data triggers):
 * only a streak says the platform is down.
 */
export const CERTAINLY_DOWN_CODES: readonly string[] = [
  PLATFORM_ERROR_CODES.unreachable,
  PLATFORM_ERROR_CODES.unauthorized,
];

/** How many platform-wide failures in a row stop a run: as asked, else max(10, 2 × concurrency). */
export function platformDownLimit(options: { platformDownLimit?: number; concurrency: number }): number {
  return options.platformDownLimit ?? Math.max(10, options.concurrency * 2);
}

/** Why a run stops after `count` failures of `code` in a row; undefined for a row's own failure. */
export function platformDownReason(code: string, count: number, message: string): string | undefined {
  return WHY_STOPPED[code]?.(count, message);
}

/**
 * Counts platform-wide failures in a row, of any of those kinds (an overloaded platform
 * answers 503 to some calls and drops others); any other sent outcome ends the streak.
 */
export class PlatformDownStreak {
  private readonly codes = new Set<string>();
  private message = '';
  private count = 0;
  /** Outcomes of the current phase that made a call. */
  private phaseSent = 0;

  constructor(private readonly limit: number) {}

  /** A phase begins: `everySentFailed` looks at what it sends. */
  newPhase(): void {
    this.phaseSent = 0;
  }

  /** Why the run must stop, once this outcome makes the streak long enough. */
  observe(outcome: ProcessOutcome): string | undefined {
    // A skipped dependent made no call: it neither breaks nor extends the streak.
    if (outcome.action === 'skipped') return undefined;
    this.phaseSent += 1;
    const code = outcome.errorCode ?? undefined;
    if (code === undefined || WHY_STOPPED[code] === undefined) {
      this.count = 0;
      this.codes.clear();
      return undefined;
    }
    this.count += 1;
    // Moved to the end: the set's last code is the latest failure's.
    this.codes.delete(code);
    this.codes.add(code);
    this.message = outcome.message ?? '';
    return this.count >= this.limit ? this.reason() : undefined;
  }

  /**
   * Why the run must stop when every intent the current phase has sent failed platform-wide
   * in a way that is never a row's own (`CERTAINLY_DOWN_CODES`): a phase too small to reach
   * the streak's limit is aborted all the same, so that it is resumed rather than read as
   * row failures.
   */
  everySentFailed(): string | undefined {
    const certain = [...this.codes].every((code) => CERTAINLY_DOWN_CODES.includes(code));
    return certain && this.phaseSent > 0 && this.count >= this.phaseSent ? this.reason() : undefined;
  }

  private reason(): string {
    const codes = [...this.codes];
    const last = codes[codes.length - 1]!;
    if (codes.length === 1) return WHY_STOPPED[last]!(this.count, this.message);
    return (
      `the platform failed for ${this.count} intents in a row, in several ways (${codes.join(', ')}; the last: ` +
      `${this.message}). It may be down or overloaded: \`evsync ping\` tells whether it answers`
    );
  }
}
