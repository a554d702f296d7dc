import type { ErrorCode } from '../errors/codes.js';
import type { RowOrigin } from '../model/row-origin.js';
import type { Intent, IntentKind } from '../model/intent.js';
import type { FlatParams } from '../model/params.js';

/**
 * One problem with one row, ready for a person: `message` already carries the origin and
 * the column (`row 17 (line 18), email: "bob@" is not an e-mail address`).
 */
export interface MappingProblem {
  /** The source column the bad value came from, or the param name when none did. */
  field: string;
  /** The write param concerned, when there is one. */
  param?: string;
  message: string;
  /** Stable code: a `WriteParamIssueCode`, a source code (`CSV_RAGGED_ROW`) or a `MAPPING_*` code. */
  code: ErrorCode;
  /**
   * Set on a problem of a failed row that concerns an optional field: alone, it would only
   * have left that field out, with a warning (optional-fields.ts). The row failed for
   * another of its problems, whose code is the row's ({@link failingProblem}).
   */
  optionalField?: true;
}

/** What to do with a second row that yields the same `(kind, key)` or the same unique value. */
export const ON_DUPLICATE = ['error', 'first', 'last'] as const;
export type OnDuplicate = (typeof ON_DUPLICATE)[number];

/**
 * What to do with a user row whose e-mail an earlier row of the step gave to a person of
 * another name (ticket holders of one order; docs/mapping.md, "Shared e-mails"): `error`
 * fails it (exit 1), `first` leaves it out on purpose, `suffix` gives it a plus-address of
 * the shared one (`anna+eb-1002@example.org`). The first row keeps the e-mail in each case.
 */
export const ON_SHARED_EMAIL = ['error', 'first', 'suffix'] as const;
export type OnSharedEmail = (typeof ON_SHARED_EMAIL)[number];

/** A row whose intents were all produced and validated. */
export interface IntentsItem {
  type: 'intents';
  origin: RowOrigin;
  intents: Intent[];
  /**
   * Set on a user's schedule, yielded after the source's last row: how many rows (already
   * reported as `grouped`) went into it. Such an item is not a row of its own.
   */
  groupedRows?: number;
  /** Optional fields left out for a problem of theirs: the row is sent without them. */
  warnings?: MappingProblem[];
}

/** A row left out on purpose by a `when:` condition (or a mapping module's `skip`). */
export interface SkippedItem {
  type: 'skipped';
  origin: RowOrigin;
  reason: string;
  /** The kind of intent the row came closest to (see `RowSkip`), when that is one kind. */
  kind?: IntentKind;
  /** Left out because a value it needs is empty, not filtered out on purpose (see `RowSkip`). */
  incomplete?: boolean;
  /** The users and events it would have synced, when read (see `RowSkip.keys`). */
  keys?: Array<{ kind: IntentKind; key: string }>;
  /** Why, when not a `when:` condition: `MAPPING_SHARED_EMAIL` under `on_shared_email: first`. */
  code?: ErrorCode;
}

/** A row that cannot be sent: every problem of the row, all at once. */
export interface InvalidItem {
  type: 'invalid';
  origin: RowOrigin;
  problems: MappingProblem[];
  /** The kind of the row's intents, when the row produced intents of one kind. */
  kind?: IntentKind;
  /** As on {@link IntentsItem}: a grouped schedule that failed validation, not a row. */
  groupedRows?: number;
  /**
   * Every `(kind, key)` the row would have synced, when all of them could be read although
   * the row failed (a bad e-mail, not a bad client_id): mirror mode must not delete them.
   * Absent when a key is missing or is itself the problem, and for rows the source could
   * not read.
   */
  keys?: Array<{ kind: IntentKind; key: string }>;
  /**
   * The params of the row's first intent, valid or not: what a
   * person searches the row by (a name, an e-mail). Stored redacted with the row's result
   * (docs/sync-engine.md, "Rows are found by the person"). Absent for rows the source could
   * not read.
   */
  params?: FlatParams;
}

/**
 * The problem a failed row is reported under (its code is the row's, in the ledger and in
 * `validate`'s tally): the first one that fails the row, never one of an optional field
 * that would only have been left out with a warning. The row's message still names them all.
 */
export function failingProblem(item: InvalidItem): MappingProblem | undefined {
  return item.problems.find((problem) => problem.optionalField !== true) ?? item.problems[0];
}

/**
 * A row that repeats a `(kind, key)` or a `unique:` value of an earlier row, under
 * `on_duplicate: first` or `last` (under `error` it is an {@link InvalidItem}).
 * With `first` its `intents` are empty: nothing of it is sent. With `last` they replace the
 * earlier row's intents: those are named in `replaces` (their keys may differ, when the
 * rows share a `unique:` value such as an e-mail) and a consumer drops them.
 */
export interface DuplicateItem {
  type: 'duplicate';
  origin: RowOrigin;
  kind: IntentKind;
  key: string;
  /** Row number (1-based) of the row that used the key or value first. */
  firstRow: number;
  /** The column (or param) whose value repeats: the client_id's, or a `unique:` one's. */
  field: string;
  policy: Exclude<OnDuplicate, 'error'>;
  intents: Intent[];
  /** Under `last`: the intents of the earlier rows that this row replaces, with their rows. */
  replaces?: Array<{ kind: IntentKind; key: string; row: number }>;
  message: string;
  /** As on {@link IntentsItem}, for the intents it still sends. */
  warnings?: MappingProblem[];
}

/**
 * A schedule row folded into its user's one schedule intent, which comes as an
 * {@link IntentsItem} (origin: the user's first row) after the last row of the source.
 */
export interface GroupedItem {
  type: 'grouped';
  origin: RowOrigin;
  kind: 'schedule';
  /** The key of the schedule intent the row went into: the user's client_id. */
  key: string;
}

export type MappedItem = IntentsItem | SkippedItem | InvalidItem | DuplicateItem | GroupedItem;

/** The columns a mapping asked for, compared with the header of the source. */
export interface HeaderReport {
  /** Columns (each with its aliases) that the source does not have: their values read as empty. */
  missing: string[][];
  /** Source columns that no param reads. */
  unused: string[];
  /** With the step's `custom_data: { columns: all_unmapped }`: what each user's custom_data keeps of {@link unused}. */
  customData?: UnmappedCustomData;
}

/**
 * What `custom_data: { columns: all_unmapped }` does with the columns no param reads, for
 * one header: the notes of `validate`, `plan` and `run` say it from this, never from the
 * step's wish alone (docs/mapping.md, "Columns no mapping reads").
 */
export interface UnmappedCustomData {
  /** The columns each user's custom_data holds, by their header, when a row has a value. */
  kept: string[];
  /** The columns it does not hold, each with why (a secret's name, a key the mapping already fills). */
  leftOut: Array<{ column: string; reason: string }>;
  /**
   * The mapping's own custom_data object that the kept columns are merged into, as a note
   * names it (`the JSON object in the column "custom_data"`); unset when the source lacks
   * that column.
   */
  mergedInto?: string;
}

export interface MapSourceOptions {
  /**
   * Called when a row shows the source's columns: once, or once per `record_type` for
   * sources that mix record types (Sessionize, pretalx, frab), whose columns differ.
   */
  onHeader?: (report: HeaderReport) => void;
  /** Called once the source is read, with what a person should know of how its rows were mapped. */
  onNotes?: (notes: readonly string[]) => void;
  /**
   * A run's plan: the hash of params the ledger holds as synced under the key, when it
   * knows so already; such a row is not checked again (`RowState.process`).
   */
  syncedHash?: SyncedHashOf;
}

/**
 * The hash of `params` (`hashIntent`) when the ledger's last synced hash of `(kind, key)`
 * is that hash, without a round trip; `undefined` when it differs or is not known yet.
 */
export type SyncedHashOf = (
  kind: IntentKind,
  key: string,
  op: 'upsert' | 'remove',
  params: FlatParams,
) => string | undefined;
