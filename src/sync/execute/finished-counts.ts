import { CODE } from '../../errors/codes.js';
import { totalsOf } from '../../model/result-records.js';
import { SKIPPED_FOR_MISSING_DATA, SKIPPED_ON_PURPOSE } from '../plan/plan-summary.js';
import type { EngineDeps } from './engine-deps.js';
import type { RunSummary } from './run-summary.js';

// What a finished run's results say beyond their counts, read from the ledger once the run
// is recorded: each read only when the counts show it can find something.

/**
 * Skipped results that are data lost, not rows filtered out on purpose: they make the run
 * end with exit code 1 (see README, exit codes).
 */
const LOST_ROW_CODES = [
  CODE.EVSYNC_ROW_INCOMPLETE,
  CODE.EVSYNC_PARENT_MISSING,
  CODE.EVSYNC_PARENT_HELD,
  // A schedule sent without events that failed or are in no source: a success, with picks lost.
  CODE.EVSYNC_SCHEDULE_PICKS_MISSING,
];

/**
 * How many of a run's results are rows lost (`RunRecord.lost`, `RunSummary.rowsLost`): read
 * only when the counts show a skipped row or a schedule sent, the only results that can be.
 */
export async function lostRows(
  ledger: EngineDeps['ledger'],
  runId: string,
  counts: RunSummary['counts'],
): Promise<number> {
  const anySkipped = Object.values(counts).some((perKind) => (perKind?.skipped ?? 0) > 0);
  const schedules = counts.schedule ?? {};
  if (!anySkipped && (schedules.created ?? 0) + (schedules.updated ?? 0) === 0) return 0;
  const lost = totalsOf(await ledger.resultCounts(runId, { errorCodes: LOST_ROW_CODES }));
  return Object.values(lost).reduce((sum, n) => sum + (n ?? 0), 0);
}

/**
 * See `RunSummary.skipped`: read only when something was skipped; `schedulesShort`, the
 * schedules sent without some events, only when some schedule was sent.
 */
export async function skippedSplit(
  ledger: EngineDeps['ledger'],
  runId: string,
  counts: RunSummary['counts'],
): Promise<RunSummary['skipped']> {
  const anySkipped = Object.values(counts).some((perKind) => (perKind?.skipped ?? 0) > 0);
  const users = counts.user ?? {};
  // Shared e-mails fail or are left out (merge-people.ts, shared-email.ts): only users.
  const anyUserLeft = (users.skipped ?? 0) + (users.failed ?? 0) > 0;
  const schedules = counts.schedule ?? {};
  const anySchedule = (schedules.created ?? 0) + (schedules.updated ?? 0) > 0;
  if (!anySkipped && !anySchedule && !anyUserLeft) return undefined;
  const skippedWith = async (codes: ReadonlySet<string>): Promise<number> =>
    anySkipped ? (totalsOf(await ledger.resultCounts(runId, { errorCodes: [...codes] })).skipped ?? 0) : 0;
  const short = anySchedule
    ? totalsOf(
        await ledger.resultCounts(runId, {
          errorCodes: [CODE.EVSYNC_SCHEDULE_PICKS_LEFT_OUT, CODE.EVSYNC_SCHEDULE_PICKS_MISSING],
        }),
      )
    : {};
  const duplicates = await skippedWith(new Set([CODE.EVSYNC_DUPLICATE_ROW]));
  const shared = anyUserLeft
    ? totalsOf(await ledger.resultCounts(runId, { errorCodes: [CODE.MAPPING_SHARED_EMAIL] }))
    : {};
  const sharedEmails = (shared.failed ?? 0) + (shared.skipped ?? 0);
  const suppressed = await skippedWith(new Set([CODE.EVSYNC_ERASED]));
  return {
    onPurpose: await skippedWith(SKIPPED_ON_PURPOSE),
    lost: await skippedWith(SKIPPED_FOR_MISSING_DATA),
    ...(duplicates > 0 ? { duplicates } : {}),
    ...(sharedEmails > 0 ? { sharedEmails } : {}),
    ...(suppressed > 0 ? { suppressed } : {}),
    schedulesShort: (short.created ?? 0) + (short.updated ?? 0),
  };
}

/** See `RunSummary.uncertainCheckIns`: read only when some check-ins failed. */
export async function uncertainCheckInsOf(
  ledger: EngineDeps['ledger'],
  runId: string,
  counts: RunSummary['counts'],
): Promise<RunSummary['uncertainCheckIns']> {
  if (!counts.check_in?.failed) return undefined;
  const codes = [CODE.EVSYNC_CHECK_IN_OUTCOME_UNKNOWN, CODE.EVSYNC_CHECK_IN_HELD_BACK];
  const [lost, held] = await Promise.all(
    codes.map(
      async (code) => (await ledger.resultCounts(runId, { errorCodes: [code] })).check_in?.failed ?? 0,
    ),
  );
  if (!lost && !held) return undefined;
  const first = await ledger.results(runId, {
    kinds: ['check_in'],
    actions: ['failed'],
    errorCodes: codes,
    limit: 5,
  });
  return { lost: lost ?? 0, held: held ?? 0, keys: first.map((result) => result.key) };
}
