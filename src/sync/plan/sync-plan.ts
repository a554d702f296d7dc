import type { IntentKind } from '../../mapping/intent.js';
import type { PlannedIntent } from '../../ledger/ledger.js';
import type { FlatParams } from '../../platform/params.js';
import type { RowOrigin } from '../../sources/source-row.js';

/**
 * A row that never became work: invalid per the mapping's rules, skipped by the mapping,
 * a duplicate key, or a source problem. It still ends in the ledger with a result.
 */
export interface RowResult {
  kind: IntentKind;
  key: string;
  action: 'failed' | 'skipped';
  origin: RowOrigin | null;
  errorCode: string;
  message: string;
  params?: FlatParams;
}

/** Mirror-mode deletes of one kind, with the numbers the threshold was checked against. */
export interface DeleteCount {
  kind: IntentKind;
  deletes: number;
  known: number;
  allowed: number;
}

/** What a run will do, decided before anything is sent. */
export interface SyncPlan {
  /** Intents that need a call (create, update, delete), in source order, deletes last. */
  work: PlannedIntent[];
  /** Intents whose params match the last-synced hash: recorded `unchanged`, no call. */
  unchanged: PlannedIntent[];
  rowResults: RowResult[];
  deletes: DeleteCount[];
  /** Milliseconds spent diffing (hashes already loaded). */
  planMs: number;
}

/** What the ledger knows before the run, loaded once. */
export interface KnownState {
  hashes: ReadonlyMap<IntentKind, ReadonlyMap<string, string>>;
  ids: ReadonlyMap<IntentKind, ReadonlyMap<string, number>>;
}
