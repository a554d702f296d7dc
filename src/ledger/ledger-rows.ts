import type { IntentDependency, IntentKind } from '../model/intent.js';
import type { FlatParams } from '../model/params.js';
import type { RowOrigin } from '../model/row-origin.js';
import type { PlannedAction, PlannedIntentRecord } from '../model/planned-intent.js';
import type { ActionCounts, IntentResultRecord, ResultAction } from '../model/result-records.js';
import {
  FAILED_OUTSIDE_FILTER,
  type RunMode,
  type RunPruning,
  type RunRecord,
  type RunStatus,
} from '../model/run-record.js';

/**
 * Database rows → ledger records. pg returns int8 as strings and PGlite as numbers or
 * bigints; ids and counters here are far below 2^53, so they become plain numbers.
 */
export type Int8 = number | string | bigint;

export interface RunRow {
  id: string;
  seq: Int8;
  job_name: string;
  mode: string;
  status: string;
  started_at: Date;
  finished_at: Date | null;
  counts: ActionCounts | null;
  lost?: number | null;
  options: Record<string, unknown> | null;
  conference_id: number | null;
  conference_url: string | null;
  pruned_at?: Date | null;
  prune?: PruneNote | null;
}

/** `runs.prune` (migration 10), as `SqlPruning` writes it. */
export interface PruneNote {
  started_at: string;
  rule: string;
  counts_by_kind: RunPruning['countsByKind'];
  /** Rows per table when the first prune of the run started. */
  rows_before?: Record<string, number>;
  removed?: Record<string, number>;
  kept?: Record<string, number>;
}

export interface PlannedIntentRow {
  seq: Int8;
  run_id: string;
  kind: string;
  key: string;
  op: string;
  planned_action: string;
  params: FlatParams;
  redacted_params: string[];
  origin: RowOrigin | null;
  depends_on: IntentDependency[];
  hash: string;
  send_started_at: Date | null;
  aliases: string[] | null;
}

export interface ResultRow {
  seq: Int8;
  run_id: string;
  kind: string;
  key: string;
  action: string;
  origin_source: string | null;
  origin_row: number | null;
  origin_line: number | null;
  platform_id: Int8 | null;
  http_status: number | null;
  error_code: string | null;
  error_message: string | null;
  attempts: number;
  duration_ms: number;
  params: FlatParams | null;
  recorded_at: Date;
  worker: string | null;
}

export function toNumber(value: Int8): number {
  return typeof value === 'number' ? value : Number(value);
}

export function toRunRecord(row: RunRow): RunRecord {
  return {
    id: row.id,
    seq: toNumber(row.seq),
    jobName: row.job_name,
    mode: row.mode as RunMode,
    status: row.status as RunStatus,
    startedAt: new Date(row.started_at),
    finishedAt: row.finished_at === null ? null : new Date(row.finished_at),
    counts: row.counts ?? {},
    ...(row.lost != null && row.lost > 0 ? { lost: row.lost } : {}),
    ...failedOutsideOf(row.options),
    options: row.options ?? {},
    conference:
      row.conference_id === null || row.conference_url === null
        ? null
        : { id: Number(row.conference_id), baseUrl: row.conference_url },
    ...(row.prune ? { pruned: toRunPruning(row.prune, row.pruned_at ?? null) } : {}),
  };
}

function toRunPruning(note: PruneNote, prunedAt: Date | null): RunPruning {
  return {
    startedAt: new Date(note.started_at),
    prunedAt: prunedAt === null ? null : new Date(prunedAt),
    rule: note.rule,
    countsByKind: note.counts_by_kind,
    removed: note.removed ?? {},
    kept: note.kept ?? {},
  };
}

export function toPlannedIntentRecord(row: PlannedIntentRow): PlannedIntentRecord {
  return {
    runId: row.run_id,
    seq: toNumber(row.seq),
    kind: row.kind as IntentKind,
    key: row.key,
    op: row.op as 'upsert' | 'remove',
    plannedAction: row.planned_action as PlannedAction,
    params: row.params,
    redactedParams: row.redacted_params,
    origin: row.origin,
    dependsOn: row.depends_on,
    ...(row.aliases?.length ? { aliases: row.aliases } : {}),
    hash: row.hash,
    sendStartedAt: row.send_started_at === null ? null : new Date(row.send_started_at),
  };
}

export function toResultRecord(row: ResultRow): IntentResultRecord {
  return {
    runId: row.run_id,
    seq: toNumber(row.seq),
    kind: row.kind as IntentKind,
    key: row.key,
    action: row.action as ResultAction,
    origin: toOrigin(row),
    platformId: row.platform_id === null ? null : toNumber(row.platform_id),
    httpStatus: row.http_status,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    attempts: row.attempts,
    durationMs: row.duration_ms,
    params: row.params ?? {},
    recordedAt: new Date(row.recorded_at),
    worker: row.worker ?? null,
  };
}

function toOrigin(row: ResultRow): RowOrigin | null {
  if (row.origin_source === null) return null;
  const origin: RowOrigin = { source: row.origin_source, row: row.origin_row ?? 0 };
  if (row.origin_line !== null) origin.line = row.origin_line;
  return origin;
}

/** The one row a statement returns (an INSERT … RETURNING, a single-row read). */
export function one<T>(rows: T[]): T {
  const [row] = rows;
  if (row === undefined) throw new Error('The ledger statement returned no row.');
  return row;
}

/** `RunRecord.failedOutside`, from the run option a filtered retry stores. */
function failedOutsideOf(options: Record<string, unknown> | null): { failedOutside?: number } {
  const count = options?.[FAILED_OUTSIDE_FILTER];
  return typeof count === 'number' && count > 0 ? { failedOutside: count } : {};
}
