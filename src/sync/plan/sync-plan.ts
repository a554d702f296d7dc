import type { IntentKind } from '../../model/intent.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import type { FlatParams } from '../../model/params.js';
import type { RowOrigin } from '../../model/row-origin.js';
import type { MissingParent } from '../phases/dependency-gate.js';

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
  /**
   * Every `(kind, key)` the row would have synced (client_ids, links' keys), set only when
   * all of them could be read although the row failed or was left out as a duplicate:
   * mirror mode does not delete them.
   * A failed row without them, keyed by its place (`@<source>:<row>`), holds back every
   * mirror delete of the run.
   */
  keptKeys?: ReadonlyArray<{ kind: IntentKind; key: string }>;
}

/** Mirror-mode deletes of one kind, with the numbers the threshold was checked against. */
export interface DeleteCount {
  kind: IntentKind;
  deletes: number;
  known: number;
  allowed: number;
}

/**
 * Mirror deletes not made because some failed rows had no readable key: any of them may be
 * an object the ledger knows, still in the source, so nothing is deleted this run.
 */
export interface HeldDeletes {
  /** The deletes that would have been planned, per kind (nothing is checked against the threshold). */
  counts: DeleteCount[];
  /** Failed rows whose key could not be read. */
  rows: number;
  /** The first of them, for the message. */
  first: RowOrigin | null;
}

/** What a run will do, decided before anything is sent. */
export interface SyncPlan {
  /** Intents that need a call (create, update, delete), in source order, deletes last. */
  work: PlannedIntent[];
  /** Intents whose params match the last-synced hash: recorded `unchanged`, no call. */
  unchanged: PlannedIntent[];
  rowResults: RowResult[];
  deletes: DeleteCount[];
  /**
   * Work the run will skip, with the message it will record: links whose user or event is
   * neither in this run nor known from an earlier one (the run's dependency rule, applied
   * ahead). They stay in `work` so that a resume or retry finds them planned.
   */
  parentMissing?: ReadonlyMap<PlannedIntent, MissingParent>;
  /**
   * Schedules the run will send without some of their events (unknown, deleted by a run,
   * filtered out on purpose), with the warning their result will carry.
   */
  pickWarnings?: ReadonlyMap<PlannedIntent, string>;
  /** Set when mirror mode held back its deletes (see {@link HeldDeletes}). */
  heldDeletes?: HeldDeletes;
  /** The name and e-mail last sent for the first mirror deletes of each kind, by `labelId`. */
  deleteLabels?: ReadonlyMap<string, string>;
  /**
   * Upsert mode: users and events a `when:` condition left out that an earlier run synced.
   * Nothing removes them, which the plan says (a refunded or not-attending ticket stays).
   */
  leftOutSynced?: ReadonlyArray<{ kind: IntentKind; key: string; reason: string }>;
  /** Milliseconds spent diffing (hashes already loaded). */
  planMs: number;
}

/** What the ledger knows before the run, loaded once. */
export interface KnownState {
  hashes: ReadonlyMap<IntentKind, ReadonlyMap<string, string>>;
  ids: ReadonlyMap<IntentKind, ReadonlyMap<string, number>>;
}
