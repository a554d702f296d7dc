import type { ErrorCode } from '../errors/codes.js';
import type { IntentKind } from '../model/intent.js';
import type { RowOrigin } from '../model/row-origin.js';

/** Raw values by column name: strings from files, driver values from databases. */
export type RawRecord = Record<string, unknown>;

/**
 * What every source yields: a raw row with where it came from, or a problem with a row
 * (ragged, unterminated quote…) that becomes a per-row result instead of stopping the run.
 */
export interface SourceRow {
  ok: true;
  origin: RowOrigin;
  values: RawRecord;
  /**
   * Columns the source's format cannot carry at all (pretalx's XML has no biographies): their
   * `''` says nothing about the field, unlike an empty cell, so a field filled from them is
   * never cleared on the platform (docs/sync-engine.md, "Cleared fields"). Absent when the
   * source carries every column it yields.
   */
  uncarried?: readonly string[];
  /**
   * Some value holds a line break (a quoted CSV value over several lines): the mapping puts
   * single-line fields on one line (mapping/single-line.ts). Absent for the other rows.
   */
  lineBreaks?: true;
  /**
   * Columns whose value another file gave (a speaker's e-mail from the organiser's speaker
   * list), each with that value's place (`row 2 (line 3) of CSV file speakers.csv`): the
   * row's messages about such a value point there. Absent for the other rows.
   */
  filledFrom?: Readonly<Record<string, string>>;
}

export interface SourceRowProblem {
  ok: false;
  origin: RowOrigin;
  /** Stable code, e.g. `CSV_RAGGED_ROW`. */
  code: ErrorCode;
  /** What is wrong and what to do, without the origin (the reporter prefixes it). */
  message: string;
  /** The kind of intent the row stands for, when the source knows it (a schedule's speaker is a user). */
  kind?: IntentKind;
}

export type SourceItem = SourceRow | SourceRowProblem;

/** How far a reading has come, in the source's own unit (bytes of a file). */
export interface SourceProgress {
  done: number;
  total: number;
}

/** A source is read once, streaming, with bounded memory whatever its size. */
export interface Source {
  /** A short description for logs and reports, with no credentials. */
  readonly description: string;
  rows(): AsyncIterable<SourceItem>;
  /** How far `rows()` has read, when the source knows its size (a file); for progress bars. */
  progress?(): SourceProgress | undefined;
  /**
   * What a person should know about how the last `rows()` read the source, e.g. which
   * encoding was guessed and why; complete once `rows()` has ended.
   */
  notes?(): readonly string[];
  /**
   * How the last `rows()` decided who is who, when it had to (a joined speaker list: how many
   * speakers it matched by id and name, by e-mail, by name, and the conflicts); complete
   * once `rows()` has ended. `evsync plan` shows it (docs/sync-engine.md, "Who is who").
   */
  identity?(): readonly string[];
}

/**
 * What is said of a source that yielded no rows (a header-only CSV, a query that found
 * nothing), naming it: `run` and `plan` log it as a warning, `validate` lists it with a
 * step's warnings (README: "A source that yields no rows is always said").
 */
export function yieldedNoRows(description: string): string {
  return `${description} yielded no rows`;
}
