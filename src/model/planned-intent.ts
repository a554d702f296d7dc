import type { IntentDependency, IntentKind } from './intent.js';
import type { FlatParams } from './params.js';
import type { RowOrigin } from './row-origin.js';

/**
 * What the plan decided for an intent before anything was sent. `retire`: a mirror delete
 * of a key whose platform record a key still in the source maps to; the ledger forgets the
 * key, and nothing is sent (docs/sync-engine.md).
 */
export const PLANNED_ACTIONS = ['create', 'update', 'delete', 'retire', 'unchanged'] as const;
export type PlannedAction = (typeof PLANNED_ACTIONS)[number];

/** One intent of a run's plan, stored before any call so `resume` survives a `kill -9`. */
export interface PlannedIntent {
  kind: IntentKind;
  key: string;
  op: 'upsert' | 'remove';
  plannedAction: PlannedAction;
  /**
   * Write params. Stored REDACTED (secrets never enter the ledger): values of secret
   * names come back as `[redacted]`, listed in `PlannedIntentRecord.redactedParams`.
   */
  params: FlatParams;
  origin: RowOrigin | null;
  dependsOn: IntentDependency[];
  /** The other client_ids of a merged user (see `Intent.aliases`). */
  aliases?: string[];
  /** Params the source's format cannot carry (see `Intent.uncarried`): never cleared. */
  uncarried?: string[];
  /** Optional fields the row was sent without (see `Intent.warnings`). */
  warnings?: string[];
  /** See `Intent.plusOnShare`. */
  plusOnShare?: true;
  /** Hash of the full (unredacted) params, written to `synced_hashes` after a success. */
  hash: string;
}

export interface PlannedIntentRecord extends PlannedIntent {
  runId: string;
  /** Insertion order within the ledger: stable paging cursor. */
  seq: number;
  /** Param names whose values were redacted on store: a resume must re-derive or drop them. */
  redactedParams: string[];
  /** When a call that must not be repeated started (see `Ledger.markSendStarted`), else null. */
  sendStartedAt: Date | null;
}

export interface PendingFilter {
  kinds?: readonly IntentKind[];
  /** Only these keys (with `kinds`, the intents a distributed worker is handed). */
  keys?: readonly string[];
  /** Only those marked as being sent (`Ledger.markSendStarted`). */
  sendStarted?: boolean;
  afterSeq?: number;
  /**
   * Only intents with `seq` up to this one: with `afterSeq`, a span of the plan read by its
   * primary key alone, whatever the size of the run (a resume pages through its plan so).
   */
  throughSeq?: number;
  limit?: number;
  /**
   * With `keys` and `kinds`: also up to this many intents of those kinds planned after the
   * last pending one of the keys, which a distributed worker is likely handed next. Whether
   * these have a result by now is not checked: see `pendingReads` for why that is safe.
   */
  ahead?: number;
}
