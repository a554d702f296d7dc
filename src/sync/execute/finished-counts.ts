import { CODE } from '../../errors/codes.js';
import { totalsOf, type ActionCounts } from '../../model/result-records.js';
import { SKIPPED_FOR_MISSING_DATA, SKIPPED_ON_PURPOSE } from '../plan/plan-summary.js';
import type { EngineDeps } from './engine-deps.js';
import type { RunSummary } from './run-summary.js';

// What a finished run's results say beyond their counts, read from the ledger once the run
// is recorded: each read only when the counts show it can find something.

/**
 * A run's results that are rows lost (`SKIPPED_FOR_MISSING_DATA`), per action: skipped, and
 * schedules sent without events that failed or are in no source (a success, with picks
 * lost). Their sum is `RunRecord.lost` (`RunSummary.rowsLost`); the skipped ones are
 * `RunSummary.skipped.lost`. Read only when the counts show a skipped row or a schedule
 * sent, the only results that can be.
 */
export async function lostResults(
  ledger: EngineDeps['ledger'],
  runId: string,
  counts: RunSummary['counts'],
): Promise<ActionCounts> {
  const schedules = counts.schedule ?? {};
  if (!anySkipped(counts) && (schedules.created ?? 0) + (schedules.updated ?? 0) === 0) return {};
  return totalsOf(await ledger.resultCounts(runId, { errorCodes: [...SKIPPED_FOR_MISSING_DATA] }));
}

function anySkipped(counts: RunSummary['counts']): boolean {
  return Object.values(counts).some((perKind) => (perKind?.skipped ?? 0) > 0);
}

/**
 * See `RunSummary.skipped`: read only when something was skipped; `schedulesShort`, the
 * schedules sent without some events, only when some schedule was sent. `lost`: the run's
 * {@link lostResults}, read already.
 */
export async function skippedSplit(
  ledger: EngineDeps['ledger'],
  runId: string,
  counts: RunSummary['counts'],
  lost: ActionCounts,
): Promise<RunSummary['skipped']> {
  const skipped = anySkipped(counts);
  const users = counts.user ?? {};
  // Shared e-mails fail or are left out (merge-people.ts, shared-email.ts): only users.
  const anyUserLeft = (users.skipped ?? 0) + (users.failed ?? 0) > 0;
  const schedules = counts.schedule ?? {};
  const anySchedule = (schedules.created ?? 0) + (schedules.updated ?? 0) > 0;
  if (!skipped && !anySchedule && !anyUserLeft) return undefined;
  const skippedWith = async (codes: ReadonlySet<string>): Promise<number> =>
    skipped ? (totalsOf(await ledger.resultCounts(runId, { errorCodes: [...codes] })).skipped ?? 0) : 0;
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
    lost: lost.skipped ?? 0,
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
