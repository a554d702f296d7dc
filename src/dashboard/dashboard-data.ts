import { prunedMarker, prunedNote } from '../sync/prune/pruned-note.js';
import { ERROR_CATALOG, isErrorCode } from '../errors/codes.js';
import { unknownRunError } from '../ledger/ledger-error.js';
import type { ErrorGroup } from '../ledger/ledger-insights.js';
import type { Ledger } from '../ledger/ledger.js';
import type { TombstoneRecord } from '../ledger/ledger-erasure.js';
import { isSecretName } from '../log/redaction.js';
import { runConferenceHost } from '../model/conference.js';
import { totalsOf, type ActionCounts, type RunResultCounts } from '../model/result-records.js';
import { type RunRecord, runTook, runTrigger, tookNote } from '../model/run-record.js';
import { SKIPPED_FOR_MISSING_DATA, SKIPPED_ON_PURPOSE } from '../sync/plan/plan-summary.js';
import { causesFirst } from '../sync/notify/notice-cause.js';

/**
 * What the dashboard's pages and JSON answers show, read from the ledger. The HTML views
 * render these same objects, so a page and its JSON never disagree.
 */

export interface RunSummaryData {
  id: string;
  jobName: string;
  /**
   * The host of the conference the run wrote to (`conferenceHost`: never a key), or null
   * for a run recorded before runs named theirs (ledger migration 8).
   */
  conference: string | null;
  /** That conference's id in the ledger: what `/runs?conference=` takes. */
  conferenceId: number | null;
  mode: string;
  status: string;
  /** `manual`, `schedule` or `retry` (`options.trigger`). */
  trigger: string;
  startedAt: Date;
  finishedAt: Date | null;
  /**
   * How long it took, as `evsync runs` counts it (`runTook`): since its resume when resumed,
   * until its last result when cut off; to now while it runs.
   */
  durationMs: number;
  /** What follows the duration: ` (resumed)`, ` (until cut off)` (`tookNote`), or ''. */
  durationNote: string;
  /** Per action: the stored totals of a finished run, the ledger's count of one in progress. */
  counts: ActionCounts;
  /** Of those, rows lost for want of data (`RunRecord.lost`): 0 while it runs. */
  lost: number;
  /** The run this one retries. */
  retryOf: string | null;
  /** The run this one runs again from its job file (the dashboard's "run the job again"). */
  rerunOf: string | null;
  /** Intents planned, when the run recorded it. */
  planned: number | null;
  /** The run's options, secrets left out (there should be none: `NewRun.options`). */
  options: Record<string, unknown>;
  /** `running`, but its process ended before it did: only a resume finishes it (`Ledger.processGone`). */
  processGone: boolean;
  /** `pruned` (or `pruning cut off`) once `evsync prune` removed its rows; null otherwise. */
  pruned: string | null;
  /** What its page says about that (docs/ledger.md, "Retention"); null when not pruned. */
  prunedNote: string | null;
}

export interface ErrorGroupData extends ErrorGroup {
  /** What the code means, from the error catalog (docs/errors.md). */
  meaning: string | null;
  action_hint: string | null;
}

export interface RunData {
  run: RunSummaryData;
  countsByKind: RunResultCounts;
  errors: ErrorGroupData[];
  /** Skipped results meant (a `when:` condition…) and lost for missing data, as `evsync run` splits them. */
  skipped: { onPurpose: number; lost: number };
  /** Runs that retry this one or run its job again, newest first (among the latest 200 runs). */
  retries: string[];
}

/** The status pages and events show: `cut off` for a `running` run whose process is gone. */
export function shownStatus(run: Pick<RunSummaryData, 'status' | 'processGone'>): string {
  return run.processGone ? 'cut off' : run.status;
}

export function runSummary(
  run: RunRecord,
  liveCounts?: RunResultCounts,
  processGone = false,
  /** A cut-off run's last result (`Ledger.lastResultAt`): where its time stops. */
  lastResultAt?: Date,
): RunSummaryData {
  const took = runTook(run, processGone ? (lastResultAt ?? run.startedAt) : undefined);
  const retryOf = typeof run.options.retryOf === 'string' ? run.options.retryOf : null;
  const trigger = runTrigger(run);
  return {
    id: run.id,
    jobName: run.jobName,
    conference: runConferenceHost(run),
    conferenceId: run.conference?.id ?? null,
    mode: run.mode,
    status: run.status,
    trigger,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    durationMs: took ? took.seconds * 1000 : Math.max(0, Date.now() - run.startedAt.getTime()),
    durationNote: took ? tookNote(took) : '',
    counts: liveCounts ? totalsOf(liveCounts) : run.counts,
    lost: run.lost ?? 0,
    retryOf,
    rerunOf: typeof run.options.rerunOf === 'string' ? run.options.rerunOf : null,
    planned: typeof run.options.planned === 'number' ? run.options.planned : null,
    options: Object.fromEntries(Object.entries(run.options).filter(([name]) => !isSecretName(name))),
    processGone,
    pruned: prunedMarker(run) ?? null,
    prunedNote: run.pruned ? prunedNote(run.pruned) : null,
  };
}

/** The newest runs, of every conference or of one; a run still going counts its results as they land. */
export async function loadRuns(
  ledger: Ledger,
  limit: number,
  conferenceId?: number,
): Promise<RunSummaryData[]> {
  const runs = await ledger.listRuns(limit, conferenceId === undefined ? {} : { conferenceId });
  return Promise.all(
    runs.map(async (run) => {
      if (run.status !== 'running') return runSummary(run);
      const gone = await ledger.processGone(run);
      return runSummary(
        run,
        await ledger.resultCounts(run.id),
        gone,
        gone ? await ledger.lastResultAt(run.id) : undefined,
      );
    }),
  );
}

export async function requireRun(ledger: Ledger, runId: string): Promise<RunRecord> {
  const run = await ledger.getRun(runId);
  if (!run) throw unknownRunError(runId);
  return run;
}

/**
 * What a finished run's page reads from all its results (counts per kind, errors grouped),
 * kept per run and end time: those results no longer change, unless a resume sets the run
 * going again, and then it ends at another time. An operator reloads that page often.
 */
export class FinishedRunFacts {
  private readonly facts = new Map<string, Promise<Pick<RunData, 'countsByKind' | 'errors' | 'skipped'>>>();

  constructor(private readonly size = 50) {}

  get(
    run: RunRecord,
    read: () => Promise<Pick<RunData, 'countsByKind' | 'errors' | 'skipped'>>,
    /**
     * The ledger's erasures as one text (`erasureGeneration`): a person forgotten since, by
     * this dashboard or another process, changes it, and the run's facts are read again
     * without the examples that quoted them (docs/privacy.md).
     */
    erasures = '',
  ): Promise<Pick<RunData, 'countsByKind' | 'errors' | 'skipped'>> {
    if (run.finishedAt === null || run.status === 'running') return read();
    const key = `${run.id}\u0000${run.finishedAt.getTime()}\u0000${erasures}`;
    let found = this.facts.get(key);
    if (found === undefined) {
      found = read();
      found.catch(() => this.facts.delete(key));
      this.facts.set(key, found);
      if (this.facts.size > this.size) this.facts.delete(this.facts.keys().next().value!);
    }
    return found;
  }
}

/** The erasures a cached page depends on: each tombstone, and whether it was lifted. */
function erasureGeneration(tombstones: readonly TombstoneRecord[]): string {
  return tombstones.map((tombstone) => `${tombstone.id}${tombstone.liftedAt === null ? '' : 'l'}`).join(',');
}

export async function loadRun(ledger: Ledger, runId: string, cache?: FinishedRunFacts): Promise<RunData> {
  const run = await requireRun(ledger, runId);
  const read = async (): Promise<Pick<RunData, 'countsByKind' | 'errors' | 'skipped'>> => {
    const skippedWith = async (codes: ReadonlySet<string>): Promise<number> =>
      totalsOf(await ledger.resultCounts(runId, { errorCodes: [...codes] })).skipped ?? 0;
    const [countsByKind, groups, onPurpose, lost] = await Promise.all([
      ledger.resultCounts(runId),
      ledger.insights().errorGroups(runId),
      skippedWith(SKIPPED_ON_PURPOSE),
      skippedWith(SKIPPED_FOR_MISSING_DATA),
    ]);
    const errors = causesFirst(groups).map((group) => {
      const info = isErrorCode(group.code) ? ERROR_CATALOG[group.code] : undefined;
      return { ...group, meaning: info?.meaning ?? null, action_hint: info?.action ?? null };
    });
    return { countsByKind, errors, skipped: { onPurpose, lost } };
  };
  const [{ countsByKind, errors, skipped }, recent, processGone] = await Promise.all([
    cache ? cache.get(run, read, erasureGeneration(await ledger.erasure().list())) : read(),
    ledger.listRuns(200),
    ledger.processGone(run),
  ]);
  return {
    run: runSummary(
      run,
      run.status === 'running' ? countsByKind : undefined,
      processGone,
      processGone ? await ledger.lastResultAt(run.id) : undefined,
    ),
    // A pruned run's results are gone: its counts per kind are those kept when it was pruned.
    countsByKind: run.pruned?.countsByKind ?? countsByKind,
    errors,
    skipped,
    retries: recent
      .filter((other) => other.options.retryOf === runId || other.options.rerunOf === runId)
      .map((other) => other.id),
  };
}
