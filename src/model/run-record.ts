import type { ActionCounts } from './result-records.js';

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
  options: Record<string, unknown>;
  /**
   * The conference the run wrote to (its normalised base URL), or null for a run recorded
   * before runs named theirs (ledger migration 8) and not yet taken by a later run of its job.
   */
  conference: { id: number; baseUrl: string } | null;
}
