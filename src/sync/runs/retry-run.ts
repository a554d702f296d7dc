import { unknownRunError } from '../../ledger/ledger-error.js';
import { CODE } from '../../errors/codes.js';
import { isParentKind } from '../../model/intent.js';
import type { PlannedIntent, PlannedIntentRecord } from '../../model/planned-intent.js';
import type { IntentResultRecord, ResultFilter } from '../../model/result-records.js';
import { KeyRegistry } from '../../mapping/key-registry.js';
import { isLookupKey } from '../../model/row-origin.js';
import { FAILED_OUTSIDE_FILTER, type RunRecord } from '../../model/run-record.js';
import type { Ledger } from '../../ledger/ledger.js';
import { PARENT_MISSING } from '../phases/dependency-gate.js';
import { guardCheckIns } from '../plan/lost-check-ins.js';
import { settleLostCheckIns } from './settle-lost-check-ins.js';
import type { EngineDeps } from '../execute/engine-deps.js';
import { executeAndFinish } from '../execute/execute-and-finish.js';
import { leaveHandledLater } from './handled-later.js';
import { rowResult } from '../execute/intent-result.js';
import { intentId, restoreIntents, type SourceReadAgain } from './restore-params.js';
import { notFoundAdvice, notFoundRow } from './retry-not-found.js';
import { pagesAfterSeq } from './pending-pages.js';
import { resumeStream } from './resume-feed.js';
import { answerLostInCrash } from './resume-run.js';
import { rowsReadAgain } from './rows-read-again.js';
import { plannedMark, refusedRowsNow, type RefusedRowsNow } from './refused-rows-now.js';
import type { JobLock } from '../../ledger/ledger.js';
import { depsForPlatform, requireRunConference } from './conference-scope.js';
import { whileClaimed, whileJobLocked } from './run-claim.js';
import { refusePrunedRun } from '../prune/refuse-pruned.js';
import { refuseUnfinishedRun } from './refuse-unfinished.js';
import type { RunSummary } from '../execute/run-summary.js';
import { leaveSyncedAlready, retriedAlready, retriedNote, type RetriedAlready } from './retried-already.js';
import { failedResults, isFiltered, type RetryFilter } from './retry-filter.js';

export { failedResults, type RetryFilter };

/** The new run, or why there was nothing to retry (a sentence or two for the operator). */
export type RetryOutcome =
  | {
      summary: RunSummary;
      /** The run was retried before: by which run, and that only the rows still failing went (`retriedNote`). */
      retried?: string;
    }
  | {
      summary?: undefined;
      nothingToRetry: string;
      /** Rows of the filter that were read again and still fail in the source (exit 1). */
      stillFailing: number;
      /**
       * Failed rows of the filter a retry cannot find again in the source (no client_id, or
       * a repeat of another row's): they may be fixed there, only a run sends them (exit 1).
       */
      notFound: number;
    };

/**
 * Re-sends the intents that failed in a run, with the dependents skipped because of them,
 * as a new run (`retryOf` in its options) so that the first run's history stays as it
 * was. A failed intent goes as the job's source has its row now (`refusedRowsNow`): the
 * fix an organiser made there after reading why the platform refused it. Rows that failed
 * in mapping were never planned: those keyed by their client_id are
 * read again from the job's source and sent when fixed there (`rowsReadAgain`); those named
 * by their place are not retried: fix the source and run the job again.
 */
export async function retryRun(
  engine: EngineDeps,
  runId: string,
  filter: RetryFilter = {},
): Promise<RetryOutcome> {
  const deps = await depsForPlatform(engine);
  const { ledger } = deps;
  const base = await ledger.getRun(runId);
  if (!base) throw unknownRunError(runId);
  refusePrunedRun(base, 'retry');
  await refuseUnfinishedRun(ledger, base, false);
  // A run retried already: the rows its retries synced are not sent twice, and when they
  // synced them all there is nothing to retry (docs/sync-engine.md, "Retried already").
  const already = await retriedAlready(ledger, base, filter);
  const retried = retriedNote(base.id, already);
  if (await nothingLeftAfterRetries(ledger, runId, filter, already))
    return { nothingToRetry: retried, stillFailing: 0, notFound: 0 };
  const summary = await whileJobLocked(deps, base.jobName, (lock) =>
    whileClaimed(ledger, runId, async () => {
      // Read again once claimed: a prune may have taken its rows since.
      const claimed = (await ledger.getRun(runId)) ?? base;
      refusePrunedRun(claimed, 'retry');
      await refuseUnfinishedRun(ledger, claimed, true);
      requireRunConference(ledger, base);
      return retryClaimed(deps, base, filter, lock);
    }),
  );
  if (summary && 'run' in summary) return retried === '' ? { summary } : { summary, retried };
  const notFound = summary?.notFound ?? [];
  return {
    nothingToRetry: await whyNothingToRetry(ledger, base, filter, summary?.notSent ?? [], notFound),
    stillFailing: summary?.stillFailing ?? 0,
    notFound: notFound.length,
  };
}

/**
 * Rows that failed in the source or the mapping were never planned. Those keyed by their
 * client_id were read again from the source (`rowsReadAgain`): `notSent` says why each was
 * not sent. Those named by their place, or repeating another row's key, cannot be found
 * again (`notFound`): they are named, with the run that sends them once fixed.
 */
async function whyNothingToRetry(
  ledger: Ledger,
  base: RunRecord,
  filter: RetryFilter,
  notSent: readonly string[],
  notFound: readonly IntentResultRecord[],
): Promise<string> {
  const filtered = isFiltered(filter);
  const headline =
    notSent.length > 0 || notFound.length > 0
      ? `Run ${base.id}: nothing to retry${filtered ? ' of that filter' : ''}: its failed rows cannot be sent yet.`
      : `Run ${base.id} has no failed rows${filtered ? ' matching that filter' : ''}: nothing to retry.`;
  // Rows lost for a parent held, failed in another run or in no source are not this run's
  // to send again: their parent is (RunRecord.lost).
  const lost =
    base.lost && !filtered
      ? `\n${base.lost === 1 ? '1 row was' : `${base.lost} rows were`} lost for want of data a retry cannot give: ` +
        `\`evsync report ${base.id} --status skipped\` names the user or event each skipped row needs; fix that, then run the job again.`
      : '';
  return (
    headline +
    notSent.map((line) => `\nNot sent: ${line}.`).join('') +
    (notFound.length === 0 ? '' : `\n${await notFoundAdvice(ledger, base, notFound)}`) +
    lost
  );
}

async function retryClaimed(
  deps: EngineDeps,
  base: RunRecord,
  filter: RetryFilter,
  lock: JobLock,
): Promise<RunSummary | { notSent: string[]; stillFailing: number; notFound: IntentResultRecord[] }> {
  const { ledger } = deps;
  const runId = base.id;
  const asked = failedResults(filter);
  // A first pass keeps hashes of keys only (`KeyRegistry`, 12 bytes a slot): the failed
  // intents, to tell the rows that failed the mapping and to find the rows changed in the
  // source since (`plannedMark`), and the parents among them, to find their dependents. A
  // false match (two 32-bit hashes both alike) retries a dependent that the gate then sends
  // only if its parent is there, or reads a row again for nothing.
  const planned = new KeyRegistry();
  const parents = new KeyRegistry();
  const cutOff = await cutOffCheckIns(ledger, runId, filter);
  let failedCount = cutOff.length;
  for await (const page of plannedPages(ledger, runId, asked)) {
    failedCount += page.length;
    for (const record of page) {
      planned.add(intentId(record), plannedMark(record.hash));
      if (isParentKind(record.kind)) parents.add(intentId(record), 1);
    }
  }
  // Rows that failed the mapping were never planned: read again from the source, by key.
  const unplanned: IntentResultRecord[] = [];
  for await (const result of ledger.eachResult(runId, asked))
    if (planned.firstRow(intentId(result)) === undefined) unplanned.push(result);
  const reread = await rowsReadAgain(deps, base, unplanned);
  const notFound = unplanned.filter((result) => !isLookupKey(result.key));
  if (failedCount === 0 && reread.work.length === 0 && reread.unchanged.length === 0)
    return { notSent: reread.notSent, stillFailing: reread.stillFailing.length, notFound };
  // A parent still failing in the source brings its dependents too: this run's gate skips
  // them again, and records them, so that a retry of this run finds them (a retry of a retry).
  for (const item of [...reread.work, ...reread.unchanged, ...reread.stillFailing])
    if (item.kind !== undefined && isParentKind(item.kind)) parents.add(intentId(item), 1);

  const outside = await failedOutside(ledger, base, filter, [...reread.work, ...reread.unchanged]);
  const run = await ledger.createRun({
    jobName: base.jobName,
    mode: 'upsert',
    options: {
      ...(outside > 0 ? { [FAILED_OUTSIDE_FILTER]: outside } : {}),
      retryOf: runId,
      trigger: 'retry',
      ...(base.options.platform === undefined ? {} : { platform: base.options.platform }),
      filter: {
        since: filter.since?.toISOString(),
        kinds: filter.kinds,
        keys: filter.keys,
        ...(filter.resendUnknown === true ? { resendUnknown: true } : {}),
      },
    },
  });
  await lock.holding(run.id);
  return whileClaimed(ledger, run.id, async () => {
    // The retry's plan is recorded page by page, then sent as a resume sends a plan: from
    // the ledger, a page at a time (docs/sync-engine.md, "Memory").
    const sourcesRead = new Map<string, Promise<SourceReadAgain>>();
    const unchanged = [...reread.unchanged];
    const record = async (records: readonly PlannedIntentRecord[], now?: RefusedRowsNow): Promise<void> => {
      const sorted = now?.sort(records) ?? { asPlanned: records, changed: [], unchanged: [], notSent: [] };
      unchanged.push(...sorted.unchanged);
      const readBack = await restoreIntents({ ...deps, sourcesRead }, base, sorted.asPlanned);
      const fresh = await leaveHandledLater(ledger, runId, [...readBack.items.values(), ...sorted.changed]);
      // What an earlier retry of the run synced as planned is not sent twice.
      const synced = await leaveSyncedAlready(ledger, fresh.items);
      unchanged.push(...synced.unchanged);
      const guarded = await guardCheckIns(ledger, synced.items, runId);
      const settled = await settleLostCheckIns(
        deps,
        base,
        records,
        guarded.work,
        filter.resendUnknown === true,
      );
      await ledger.recordPlannedIntents(run.id, settled.work);
      const results = [
        ...[
          ...sorted.notSent,
          ...readBack.unsendable,
          ...fresh.skipped,
          ...guarded.held,
          ...settled.held,
        ].map((row) => rowResult(run.id, row)),
        ...settled.found.map((found) => ({ ...found, runId: run.id })),
      ];
      if (results.length > 0) await ledger.recordResults(results);
    };
    if (cutOff.length > 0) await record(cutOff);
    // The rows the platform refused go as the source has them now: fixed there since, a
    // retry sends the fix. Their dependents go as planned, once their parent is there.
    const now = failedCount > cutOff.length ? await refusedRowsNow(deps, base, planned) : undefined;
    for await (const page of plannedPages(ledger, runId, asked)) await record(page, now);
    for await (const page of dependentPages(ledger, runId, parents)) await record(page);
    await ledger.recordPlannedIntents(run.id, reread.work);
    const { stream } = resumeStream(deps, run, (item) => answerLostInCrash(run.id, item), {
      guardCheckIns: false,
    });
    return executeAndFinish(deps, {
      runId: run.id,
      work: [],
      unchanged,
      // Rows retried with the others that still fail in the source, and those it cannot
      // find again: failed again, with why (an operator sees them, the exit code is 1).
      // Those the source no longer has are said too, skipped, as refused rows gone are.
      preResults: [...reread.stillFailing, ...notFound.map(notFoundRow), ...reread.gone].map((row) =>
        rowResult(run.id, row),
      ),
      stream,
    });
  });
}

/**
 * The failed rows of `base` that `filter` leaves out and no retry of it has synced: a
 * retry with a filter that syncs every row it was given leaves them failing, so it is no
 * success of its job (`RunRecord.failedOutside`), and `status`, `status --check` and a
 * `failed_rows` notice say them. 0 for a retry without a filter.
 */
async function failedOutside(
  ledger: Ledger,
  base: RunRecord,
  filter: RetryFilter,
  /** What the rows read again send: a merged user may carry another failed row's key. */
  sent: readonly PlannedIntent[],
): Promise<number> {
  if (!isFiltered(filter)) return 0;
  const [all, asked] = await Promise.all([
    retriedAlready(ledger, base),
    retriedAlready(ledger, base, filter),
  ]);
  const left = all.failed - all.synced - (asked.failed - asked.synced);
  // A row of the filter read again as one person with another failed row (a split merge
  // mended): the merged user sends that one's key too, which is then not left.
  const users = sent.filter((item) => item.kind === 'user').map((item) => item.key);
  if (users.length === 0 || left <= 0) return Math.max(0, left);
  const inFilter = new Set<string>();
  for await (const result of ledger.eachResult(base.id, failedResults(filter))) inFilter.add(result.key);
  const others = users.filter((key) => !inFilter.has(key));
  let carried = 0;
  for (const outcome of (await ledger.outcomesOf(base.id, 'user', others)).values())
    if (outcome.action === 'failed') carried += 1;
  return Math.max(0, left - carried);
}

/**
 * Whether the run's retries synced every failed row of the filter (and no check-in of it was
 * cut off mid-send): another retry has nothing to send. The dashboard's retry page asks it too.
 */
export async function nothingLeftAfterRetries(
  ledger: EngineDeps['ledger'],
  runId: string,
  filter: RetryFilter,
  already: RetriedAlready,
): Promise<boolean> {
  return (
    already.retries.length > 0 &&
    already.failed > 0 &&
    already.synced >= already.failed &&
    (await cutOffCheckIns(ledger, runId, filter)).length === 0
  );
}

/** Planned intents read per statement while a retry records its plan. */
const RETRY_PAGE = 1_000;

/** The run's planned intents whose final result matches `filter`, a page at a time. */
export function plannedPages(
  ledger: EngineDeps['ledger'],
  runId: string,
  filter: ResultFilter,
): AsyncGenerator<PlannedIntentRecord[]> {
  return pagesAfterSeq((page) => ledger.plannedByResult(runId, { ...filter, ...page }), RETRY_PAGE);
}

/**
 * The intents of the run skipped because a retried parent failed (a speaker link of a
 * user whose create failed), and schedules sent without events that failed (sent whole
 * again, docs/sync-engine.md "Phases"): retried with their parents, they go once the
 * parent succeeds.
 */
async function* dependentPages(
  ledger: EngineDeps['ledger'],
  runId: string,
  parents: KeyRegistry,
): AsyncGenerator<PlannedIntentRecord[]> {
  if (parents.size === 0) return;
  const named = (record: PlannedIntentRecord): boolean =>
    record.dependsOn.some(
      (dep) => parents.firstRow(intentId({ kind: dep.kind, key: dep.clientId })) !== undefined,
    );
  for (const filter of [
    { actions: ['skipped'], errorCodes: [PARENT_MISSING] },
    { errorCodes: [CODE.EVSYNC_SCHEDULE_PICKS_MISSING] },
  ] satisfies ResultFilter[])
    for await (const page of plannedPages(ledger, runId, filter)) {
      const dependents = page.filter(named);
      if (dependents.length > 0) yield dependents;
    }
}

/**
 * Check-ins marked as being sent in a run cut off before their result was written (its
 * answer is lost, as for a failed `EVSYNC_CHECK_IN_OUTCOME_UNKNOWN`): later runs hold them
 * back and point here, so that an operator who checked the platform can send them.
 */
async function cutOffCheckIns(
  ledger: EngineDeps['ledger'],
  runId: string,
  filter: RetryFilter,
): Promise<PlannedIntentRecord[]> {
  if (filter.since !== undefined || (filter.kinds?.length && !filter.kinds.includes('check_in'))) return [];
  const pending = await ledger.pendingIntents(runId, { kinds: ['check_in'], sendStarted: true });
  return pending.filter((record) => !filter.keys?.length || filter.keys.includes(record.key));
}
