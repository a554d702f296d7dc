import { CODE } from '../../errors/codes.js';
import { describeOrigin } from '../../model/row-origin.js';
import { SourceError } from '../source-error.js';
import type { Source } from '../source-row.js';

/** The speaker columns a joined list may fill; `email` is also matched on. */
export const JOINED_SPEAKER_COLUMNS = ['email', 'first_name', 'last_name', 'company'] as const;
export type JoinedColumn = (typeof JOINED_SPEAKER_COLUMNS)[number];

/**
 * A second source joined to a schedule export's speakers (docs/sources.md, "Speakers'
 * e-mails from a second source"): public exports carry no e-mails, and the platform needs
 * one per user. Each option names a column of the joined source.
 */
export interface SpeakerJoin {
  source: Source;
  /** The column holding the export's speaker id (Sessionize GUID, pretalx code, frab id). */
  id?: string;
  /**
   * The column(s) holding the name as the export writes it: checked against the export's
   * name of the row's id, and matched on when nothing else is.
   */
  name?: string | readonly string[];
  /** Columns whose non-empty values replace the speaker's: `email` is matched on, too. */
  columns: Partial<Record<JoinedColumn, string>>;
}

/** One row of the speaker list, as the join reads it. */
export interface ListRow {
  /** Where the row is, for messages: `row 5 (line 6) of CSV file speakers.csv`. */
  where: string;
  id: string;
  /** The name columns, joined by a space; `''` when the list has none or the row leaves them empty. */
  name: string;
  email: string;
  /** What the row fills in, by column. */
  fills: Partial<Record<JoinedColumn, string>>;
  /** The same, folded, as one string: rows that agree on it are one person. */
  fillsKey: string;
}

export interface SpeakerList {
  rows: ListRow[];
  /** Rows the source could not read (a ragged line). */
  unreadable: number;
}

export const fold = (text: string): string => text.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();

/** Reads the whole speaker list: a list names a few hundred people at most. */
export async function readSpeakerList(join: SpeakerJoin): Promise<SpeakerList> {
  const rows: ListRow[] = [];
  let unreadable = 0;
  let header: Map<string, string> | undefined;
  for await (const item of join.source.rows()) {
    if (!item.ok) {
      unreadable++;
      continue;
    }
    header ??= headerOf(Object.keys(item.values), join);
    const row = textRow(item.values, header);
    const fills: ListRow['fills'] = {};
    for (const [column, from] of Object.entries(join.columns) as Array<[JoinedColumn, string]>) {
      const value = (row[from] ?? '').trim();
      if (value !== '') fills[column] = value;
    }
    rows.push({
      where: `${describeOrigin(item.origin)} of ${join.source.description}`,
      id: join.id === undefined ? '' : (row[join.id] ?? '').trim(),
      name: names(join.name)
        .map((column) => (row[column] ?? '').trim())
        .filter((part) => part !== '')
        .join(' '),
      email: join.columns.email === undefined ? '' : fold(row[join.columns.email] ?? ''),
      fills,
      fillsKey: JSON.stringify(Object.keys(join.columns).map((c) => fold(fills[c as JoinedColumn] ?? ''))),
    });
  }
  return { rows, unreadable };
}

const names = (name: string | readonly string[] | undefined): readonly string[] =>
  name === undefined ? [] : typeof name === 'string' ? [name] : name;

const columnKey = (name: string): string => name.toLowerCase().replace(/[\s_-]+/g, '');

/**
 * The joined source's column for each column the job names, matched as mappings match them
 * (ignoring case, spaces, `_` and `-`). A named column the source lacks stops the run: the
 * join would silently match nothing.
 */
function headerOf(columns: readonly string[], join: SpeakerJoin): Map<string, string> {
  const byKey = new Map(columns.map((column) => [columnKey(column), column]));
  const named = [join.id, ...names(join.name), ...Object.values(join.columns)].filter(
    (column): column is string => column !== undefined,
  );
  const header = new Map<string, string>();
  const missing: string[] = [];
  for (const column of named) {
    const found = columns.includes(column) ? column : byKey.get(columnKey(column));
    if (found === undefined) missing.push(column);
    else header.set(column, found);
  }
  if (missing.length > 0) {
    throw new SourceError(
      `the speaker list ${join.source.description} has no column ${missing.map((c) => `"${c}"`).join(', ')} (its columns: ${columns.join(', ')}): fix the column names under speakers: in the job`,
      { code: CODE.SCHEDULE_SPEAKER_LIST_COLUMN },
    );
  }
  return header;
}

/** The named columns of a row, as text, under the names the job gave them. */
function textRow(
  values: Record<string, unknown>,
  header: ReadonlyMap<string, string>,
): Record<string, string> {
  const row: Record<string, string> = {};
  for (const [named, column] of header) row[named] = cellText(values[column]);
  return row;
}

/** A CSV cell is text; a query's value is a number, a boolean, a date or JSON. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return value instanceof Date ? value.toISOString() : JSON.stringify(value);
}
