import type { RunResultCounts } from '../model/result-records.js';
import type { RunStatus } from '../model/run-record.js';

/**
 * Retention below the interface (docs/ledger.md, "Retention"): the ledger removes a run's
 * per-row data and keeps the synced state. Which runs to prune is decided above it
 * (`src/sync/prune/`); the ledger only lists runs and removes, in short batches.
 */
export interface LedgerPruning {
  /**
   * Every run (of one job, when named), oldest first within each job and conference, with
   * what retention decides by.
   */
  runs(filter?: { jobName?: string }): Promise<PruneRunInfo[]>;
  /** What pruning the run would remove and keep, per table, without removing anything. */
  measure(runId: string): Promise<PruneTally>;
  /**
   * Removes the run's per-row data, except the rows its conference's synced state points
   * at, in batches of `batchSize` rows, each statement its own short transaction; then marks
   * the run pruned (`runs.pruned_at`). A prune cut off half way is finished by calling it
   * again. The caller holds the run's claim. `countsByKind` is kept with the run: what its
   * page shows once the results are gone.
   */
  pruneRun(runId: string, options: PruneRunOptions): Promise<PruneTally>;
}

export interface PruneRunOptions {
  /** The retention that selected the run, in words. */
  rule: string;
  countsByKind: RunResultCounts;
  /** @defaultValue 2000 */
  batchSize?: number;
}

/** A run as retention sees it. */
export interface PruneRunInfo {
  id: string;
  seq: number;
  jobName: string;
  /** 0 for a run that names no conference (recorded before migration 8). */
  conferenceId: number;
  status: RunStatus;
  startedAt: Date;
  finishedAt: Date | null;
  /** `started`: a prune was cut off before its end; `done`: its rows are gone. */
  pruning: 'none' | 'started' | 'done';
  /** `options.retention` as its job file wrote it, if the run recorded one. */
  retention: unknown;
}

/** Rows per per-run table, and an estimate of the bytes of row data removed. */
export interface PruneTally {
  tables: Record<string, { removed: number; kept: number }>;
  /** Sum of the removed rows' sizes (`pg_column_size`), indexes not counted. */
  bytes: number;
}
