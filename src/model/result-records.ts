import type { IntentKind } from './intent.js';
import type { FlatParams } from './params.js';
import type { RowOrigin } from './row-origin.js';

/** The final outcome of one intent. */
export const RESULT_ACTIONS = [
  'created',
  'attached',
  'updated',
  'unchanged',
  'deleted',
  'retired',
  'skipped',
  'failed',
] as const;
export type ResultAction = (typeof RESULT_ACTIONS)[number];

/** Outcomes after which the platform holds what the source said: hashes and ids are kept. */
export const SUCCESS_ACTIONS = [
  'created',
  'attached',
  'updated',
  'unchanged',
] as const satisfies readonly ResultAction[];

export type ActionCounts = Partial<Record<ResultAction, number>>;

/** Counts of final results of a run, per kind and action. */
export type RunResultCounts = Partial<Record<IntentKind, ActionCounts>>;

/** A run's counts summed over kinds: results per action. */
export function totalsOf(counts: RunResultCounts): ActionCounts {
  const totals: ActionCounts = {};
  for (const perKind of Object.values(counts)) {
    for (const [action, n] of Object.entries(perKind ?? {})) {
      const key = action as keyof ActionCounts;
      totals[key] = (totals[key] ?? 0) + (n ?? 0);
    }
  }
  return totals;
}

/** What the engine reports when an intent reaches its final outcome. */
export interface IntentResultInput {
  runId: string;
  kind: IntentKind;
  key: string;
  action: ResultAction;
  origin?: RowOrigin | null;
  platformId?: number | null;
  httpStatus?: number | null;
  errorCode?: string | null;
  errorMessage?: string | null;
  /** @defaultValue 1 */
  attempts?: number;
  /** @defaultValue 0 */
  durationMs?: number;
  /** Redacted by the ledger before storing. */
  params?: FlatParams;
  /**
   * Hash of the params now on the platform. On a success action it becomes the last-synced
   * hash of `(kind, key)`, in the same transaction as the result. Ignored otherwise.
   */
  hash?: string | null;
  /** The distributed worker that sent it (`host:pid`); null in a single process. */
  worker?: string | null;
  /**
   * A merged user's other client_ids (`Intent.aliases`): on a success each maps to
   * `platformId` in the id map too, so that links and schedules naming any of them find the
   * user. Not stored with the result.
   */
  aliases?: readonly string[];
}

/**
 * Side effects of recording a result, in the same transaction:
 * - success (`SUCCESS_ACTIONS`): `hash` → synced_hashes, `platformId` → id_map;
 * - `deleted`, `retired`: the hash and the id of `(kind, key)` are removed;
 * - `failed` / `skipped`: nothing else changes, so the row is sent again next run.
 */
export interface IntentResultRecord {
  runId: string;
  seq: number;
  kind: IntentKind;
  key: string;
  action: ResultAction;
  origin: RowOrigin | null;
  platformId: number | null;
  httpStatus: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  attempts: number;
  durationMs: number;
  params: FlatParams;
  recordedAt: Date;
  /** See `IntentResultInput.worker`. */
  worker: string | null;
}

export interface ResultFilter {
  actions?: readonly ResultAction[];
  /** Results with one of these error codes (`EVSYNC_PLATFORM_UNREACHABLE`…). */
  errorCodes?: readonly string[];
  kinds?: readonly IntentKind[];
  /** Results recorded at or after this time. */
  since?: Date;
  keys?: readonly string[];
  /** Only results with `seq` greater than this (keyset paging). */
  afterSeq?: number;
  limit?: number;
}

/** Which results `Ledger.resultCounts` counts. */
export interface ResultCountFilter {
  /**
   * Only those distributed workers wrote: how a coordinator counts its phase while its own
   * planner still writes the results of rows it does not send (unchanged, invalid).
   */
  byWorkers?: boolean;
  /** Only those with one of these error codes. */
  errorCodes?: readonly string[];
}
