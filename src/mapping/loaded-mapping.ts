import type { ErrorCode } from '../errors/codes.js';
import type { FlatParams } from '../model/params.js';
import type { RawRecord } from '../sources/source-row.js';
import type { RowOrigin } from '../model/row-origin.js';
import type { IntentKind } from '../model/intent.js';
import type { OnDuplicate, OnSharedEmail, UnmappedCustomData } from './mapped-item.js';

/** An intent as a mapping produced it, before its key, dependencies and validation. */
export interface IntentDraft {
  kind: IntentKind;
  op: 'upsert' | 'remove';
  params: FlatParams;
  /** The ledger key, when the mapping derives one (check-ins); computed from params otherwise. */
  key?: string;
  /** The column (or template) the mapping's `key:` reads, so that an empty key names it. */
  keyLabel?: string;
  /** Param → the source column its value came from, so that messages name the column. */
  columns?: Record<string, string>;
  /**
   * Params the mapping tried to fill but could not (a transform failed, with its own
   * problem): validation does not report them missing as well.
   */
  failedParams?: readonly string[];
  /**
   * Params the mapping marks `required: true`: a problem in one fails the row, as a problem
   * in a field the platform needs does (see optional-fields.ts). Shared by every draft of
   * the intent.
   */
  required?: ReadonlySet<string>;
  /**
   * Params the mapping builds as JSON objects (`{json: …}`, made by `JSON.stringify` of one):
   * validation does not parse them again. Shared by every draft of the intent.
   */
  jsonObjects?: ReadonlySet<string>;
  /** Optional params left out of the row for a problem of theirs (see optional-fields.ts). */
  leftOut?: string[];
  /**
   * Columns the source lacks, by the name `columns` gives them, each with why
   * (`ColumnBinder.absences`): a value needed from one is said missing from the header, not
   * empty. Shared by every draft of the header.
   */
  absentColumns?: ReadonlyMap<string, string>;
}

/** A problem found while mapping, before the origin is prefixed. */
export interface DraftProblem {
  field: string;
  param?: string;
  /** Without origin or field: `"28/13/2026" is not a date (…)`. */
  message: string;
  code: ErrorCode;
}

/**
 * Why a row produced nothing. `kind`: the kind of the intent(s) that came closest, when they
 * agree (a speaker row skipped for its e-mail is a `user` row). `incomplete`: the row was
 * left out because a value it needs is empty (a `present: true` condition), not filtered
 * out on purpose (`not_in: [Cancelled]`): such rows are data lost, and count against the
 * exit code.
 */
export interface RowSkip {
  type: 'skip';
  reason: string;
  kind?: IntentKind;
  incomplete?: boolean;
  /**
   * The users and events the row would have synced, when it is left out on purpose and their
   * client_ids could be read: links naming them are skipped on purpose, not lost.
   */
  keys?: Array<{ kind: IntentKind; key: string }>;
}

export type RowMapping = RowSkip | { type: 'drafts'; drafts: IntentDraft[]; problems: DraftProblem[] };

/** Maps one raw row of a source whose header it was bound to. Pure and synchronous. */
export interface RowMapper {
  (values: RawRecord, origin: RowOrigin): RowMapping;
  /** What a person should know of the rows mapped so far (lookups that gave their default). */
  notes?: () => string[];
  /** With `custom_data: { columns: all_unmapped }`: what each user's custom_data keeps of the unread columns. */
  customData?: UnmappedCustomData;
}

/** A mapping ready to run: from a YAML file or a TypeScript mapping module. */
export interface LoadedMapping {
  /** The shipped name (`users`) or the file's base name. */
  name: string;
  /** Absolute path of the mapping file or module. */
  file: string;
  /** The vendor word its param names were built with. */
  vendor: string;
  description: string | undefined;
  /** The intent kinds it can yield. */
  kinds: readonly IntentKind[];
  onDuplicate: OnDuplicate;
  /** What to do with a user row giving an earlier row's e-mail to another person (`on_shared_email`). */
  onSharedEmail: OnSharedEmail;
  /** Full param names whose values must not repeat across rows (`user[svc_auth_attributes][email]`). */
  unique: readonly string[];
  /** Every column it reads, each with its aliases; empty for a mapping module. */
  columns: readonly (readonly string[])[];
  /** The columns that recognise the export it reads (`detect:`), each with its aliases. */
  detect?: readonly (readonly string[])[];
  /** Compiles the mapping against a source's header (the keys of its rows). */
  bind(header: readonly string[]): RowMapper;
}
