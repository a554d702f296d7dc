import type { ActionCounts, RunResultCounts } from './result-records.js';

/** `skipped`: a scheduled run that did not start, its job's previous run still going. */
export const RUN_STATUSES = ['running', 'completed', 'failed', 'interrupted', 'aborted', 'skipped'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const RUN_MODES = ['upsert', 'mirror'] as const;
export type RunMode = (typeof RUN_MODES)[number];

export interface NewRun {
  jobName: string;
  mode: RunMode;
  /** Job options worth showing later (rate, threshold, flags). Never credentials. */
  options?: Record<string, unknown>;
}

/** A run as the ledger keeps it: the job, its mode, its status and the counts it ended with. */
export interface RunRecord {
  /** Readable, e.g. `20261122-014512-7f3a`; sortable by time only to the second. */
  id: string;
  /** Creation order in the ledger: what "a later run" means (never `startedAt`). */
  seq: number;
  jobName: string;
  mode: RunMode;
  status: RunStatus;
  startedAt: Date;
  finishedAt: Date | null;
  /** Counts per action as recorded by `finishRun` (empty while running). */
  counts: ActionCounts;
  /**
   * Of those, the rows lost for want of data (a skipped dependent of a user or event that
   * failed, is held or is in no source; a schedule sent without some events): the run
   * completed without syncing all it was given, and exited 1. Absent when none, or for a
   * run finished before the ledger counted them (migration 16).
   */
  lost?: number;
  /**
   * A retry with a filter (`--kind`, `--client-id`, `--since`): the failed rows of the run it
   * retried that the filter left out and no retry has synced (the run option
   * {@link FAILED_OUTSIDE_FILTER}). They are not synced either, so the retry is no success of
   * its job. Absent when none.
   */
  failedOutside?: number;
  options: Record<string, unknown>;
  /**
   * The conference the run wrote to (its normalised base URL), or null for a run recorded
   * before runs named theirs (ledger migration 8) and not yet taken by a later run of its job.
   */
  conference: { id: number; baseUrl: string } | null;
  /** Set once `evsync prune` started on the run (docs/ledger.md, "Retention"); absent otherwise. */
  pruned?: RunPruning;
}

/** What `evsync prune` did to a run: its per-row data removed, the run and its counts kept. */
export interface RunPruning {
  /** When a prune of the run started. */
  startedAt: Date;
  /** When its rows were gone; null while a prune cut off before its end waits for the next one to finish it. */
  prunedAt: Date | null;
  /** The retention that selected it, in words (`older than 90d, beyond the newest 30 runs`). */
  rule: string;
  /** The run's results per kind and action as they were before the prune. */
  countsByKind: RunResultCounts;
  /** Rows removed per table (`intent_results`, `run_intents`…), once pruned. */
  removed: Record<string, number>;
  /** Rows kept per table: those the synced state points at. */
  kept: Record<string, number>;
}

/** What started a run (`options.trigger`); a run recorded before runs kept one was `manual`. */
export function runTrigger(run: Pick<RunRecord, 'options'>): string {
  return typeof run.options.trigger === 'string' ? run.options.trigger : 'manual';
}

/**
 * How long a run took: from its start, or from its latest resume (`options.resumedAt`), to its
 * end; undefined while it runs. The time between a stop and its resume is nobody's work. A
 * run cut off (`running`, its process gone: no end written) took until `cutOffAt`, its last
 * recorded result (`Ledger.lastResultAt`), not until now: it does not grow on every look.
 */
export function runTook(
  run: Pick<RunRecord, 'startedAt' | 'finishedAt' | 'options'>,
  cutOffAt?: Date,
): { seconds: number; resumed: boolean; cutOff: boolean } | undefined {
  const end = run.finishedAt ?? cutOffAt;
  if (end === undefined) return undefined;
  const resumedAt = typeof run.options.resumedAt === 'string' ? Date.parse(run.options.resumedAt) : NaN;
  const from = Number.isNaN(resumedAt) ? run.startedAt.getTime() : resumedAt;
  return {
    seconds: Math.max(0, end.getTime() - from) / 1000,
    resumed: !Number.isNaN(resumedAt),
    cutOff: run.finishedAt === null,
  };
}

/** What follows a run's time, wherever it is shown: ` (resumed)`, ` (until cut off)`, or ''. */
export function tookNote(took: { resumed: boolean; cutOff: boolean }): string {
  return `${took.resumed ? ' (resumed)' : ''}${took.cutOff ? ' (until cut off)' : ''}`;
}

/**
 * What a completed run did not sync, in words: `3 failed`, `2 lost`, `3 failed, 2 lost`; ''
 * when it synced all it was given. Either makes the run no success (it exited 1): every
 * place that shows how a run ended says it the same way.
 */
/** `1 row`, `3 rows`: a count of rows as the screens word it. */
export function rowCount(count: number): string {
  return count === 1 ? '1 row' : `${count} rows`;
}

export function notSyncedNote(run: {
  counts: ActionCounts;
  lost?: number | undefined;
  failedOutside?: number | undefined;
}): string {
  const failed = run.counts.failed ?? 0;
  const lost = run.lost ?? 0;
  const outside = run.failedOutside ?? 0;
  return [
    failed > 0 ? `${failed} failed` : '',
    lost > 0 ? `${lost} lost` : '',
    outside > 0 ? `${outside} failed in the run retried, outside the retry's filter` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

/** The run option that {@link RunRecord.failedOutside} is read from. */
export const FAILED_OUTSIDE_FILTER = 'failedOutsideFilter';

/**
 * The run option a detached run carries from its hand-over until a worker takes it: its
 * status is `interrupted` meanwhile, which `evsync runs` and `status` show as waiting.
 * Here, below the distributed executor, so that reading it loads neither BullMQ nor Redis,
 * and every screen of a job can say it.
 */
export const HANDED_TO_WORKERS = 'handedToWorkers';

/** A detached run no worker has taken yet (`HANDED_TO_WORKERS`). */
export function waitsForWorker(run: RunRecord): boolean {
  return run.status === 'interrupted' && run.options[HANDED_TO_WORKERS] === true;
}

/**
 * A streamed run stopped before its sources were read to the end: the plan stores `planned`
 * once they are (streamed-plan.ts), and `readWhole` when the delete threshold stopped it
 * after. A resume sends only what was planned; a run of the job sends the rest.
 */
export function sourcesCutShort(run: Pick<RunRecord, 'options'>): boolean {
  const { options } = run;
  return options.planStreamed === true && typeof options.planned !== 'number' && options.readWhole !== true;
}
