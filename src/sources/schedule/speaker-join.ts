import { CODE } from '../../errors/codes.js';
import type { Logger } from '../../log/logger.js';
import { SourceError } from '../source-error.js';
import type { Source } from '../source-row.js';
import type { ScheduleRecord, ScheduleRecordProblem } from './schedule-records.js';

/** The speaker columns a joined list may fill; `email` is also matched on. */
export const JOINED_SPEAKER_COLUMNS = ['email', 'first_name', 'last_name', 'company'] as const;
type JoinedColumn = (typeof JOINED_SPEAKER_COLUMNS)[number];

/**
 * A second source joined to a schedule export's speakers (docs/sources.md, "Speakers'
 * e-mails from a second source"): public exports carry no e-mails, and the platform needs
 * one per user. Each option names a column of the joined source.
 */
export interface SpeakerJoin {
  source: Source;
  /** The column holding the export's speaker id (Sessionize GUID, pretalx code, frab id). */
  id?: string;
  /** The column(s) holding the name as the export writes it, matched when nothing else is. */
  name?: string | readonly string[];
  /** Columns whose non-empty values replace the speaker's: `email` is matched on, too. */
  columns: Partial<Record<JoinedColumn, string>>;
}

/** How the speakers of an export met the joined rows, for the log and the tests. */
export interface JoinOutcome {
  speakers: number;
  matched: { id: number; email: number; name: number };
  /** Speakers no row matched (their ids, at most 5). */
  unmatched: { count: number; examples: string[] };
  /** Join keys carried by several rows with different values: not used (at most 5). */
  ambiguous: { count: number; examples: string[] };
  /** Rows of the joined source that matched no speaker. */
  unusedRows: number;
}

type Row = Record<string, string>;

const fold = (text: string): string => text.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * Fills the speakers' e-mails (and names, company, when asked) from the joined rows:
 * matched by speaker id, else by e-mail, else by full name. A key two rows share with
 * different values matches nothing: guessing would give one person another's e-mail.
 */
export async function joinSpeakers(
  speakers: Array<ScheduleRecord<'speaker'>>,
  join: SpeakerJoin,
  logger?: Logger,
): Promise<JoinOutcome> {
  const byId = new KeyIndex();
  const byEmail = new KeyIndex();
  const byName = new KeyIndex();
  const rows: Row[] = [];
  let unreadable = 0;
  let header: Map<string, string> | undefined;
  for await (const item of join.source.rows()) {
    if (!item.ok) {
      unreadable++;
      continue;
    }
    header ??= headerOf(Object.keys(item.values), join);
    const row = textRow(item.values, header);
    rows.push(row);
    const index = rows.length - 1;
    const fills = JSON.stringify(
      JOINED_SPEAKER_COLUMNS.map((column) => fold(row[join.columns[column] ?? ''] ?? '')),
    );
    if (join.id) byId.add(row[join.id] ?? '', index, fills);
    if (join.columns.email) byEmail.add(fold(row[join.columns.email] ?? ''), index, fills);
    if (join.name)
      byName.add(
        fold(
          names(join.name)
            .map((c) => row[c] ?? '')
            .join(' '),
        ),
        index,
        fills,
      );
  }
  const outcome: JoinOutcome = {
    speakers: speakers.length,
    matched: { id: 0, email: 0, name: 0 },
    unmatched: { count: 0, examples: [] },
    ambiguous: { count: 0, examples: [] },
    unusedRows: 0,
  };
  const used = new Set<number>();
  const ambiguous = (what: string): void => {
    outcome.ambiguous.count++;
    if (outcome.ambiguous.examples.length < 5) outcome.ambiguous.examples.push(what);
  };
  for (const speaker of speakers) {
    // A key that rows disagree on is passed over for the next one, never guessed from.
    // pretalx's own speaker export is keyed by code, while its schedules key people by
    // their numeric id: either one names the speaker.
    const tries = [
      match(byId, speaker.id, 'id'),
      match(byId, speaker.code, 'id'),
      match(byEmail, fold(speaker.email), 'email'),
      match(byName, fold(speaker.full_name), 'name'),
    ];
    const found = tries.find((one) => typeof one === 'object');
    if (typeof found !== 'object') {
      if (tries.includes('ambiguous')) ambiguous(`speaker ${speaker.id} (${speaker.full_name})`);
      outcome.unmatched.count++;
      if (outcome.unmatched.examples.length < 5)
        outcome.unmatched.examples.push(`${speaker.id} (${speaker.full_name})`);
      continue;
    }
    outcome.matched[found.by]++;
    used.add(found.index);
    const row = rows[found.index]!;
    for (const column of JOINED_SPEAKER_COLUMNS) {
      const from = join.columns[column];
      const value = from === undefined ? '' : (row[from] ?? '').trim();
      if (value !== '') speaker[column] = value;
    }
  }
  outcome.unusedRows = rows.length - used.size;
  logJoin(outcome, unreadable, join.source.description, logger);
  return outcome;

  function match(
    index: KeyIndex,
    key: string,
    by: 'id' | 'email' | 'name',
  ): { index: number; by: typeof by } | 'ambiguous' | undefined {
    if (key === '') return undefined;
    const found = index.get(key);
    if (found === 'ambiguous') return 'ambiguous';
    return found === undefined ? undefined : { index: found, by };
  }
}

type AnyRecord =
  | ScheduleRecord<'session'>
  | ScheduleRecord<'speaker'>
  | ScheduleRecord<'speaker_link'>
  | ScheduleRecordProblem;

/**
 * Speakers the joined list gave the same e-mail are one person (the platform keeps one user
 * per e-mail): a merged schedule lists someone under two ids when they speak in two
 * sub-schedules. The first keeps its id, the others' links move to it (a link twice to one
 * session is kept once), and their records go. What was merged is logged.
 */
export function oneSpeakerPerEmail<T extends { item: AnyRecord }>(items: T[], logger?: Logger): T[] {
  const firstId = new Map<string, string>();
  const movedTo = new Map<string, string>();
  for (const { item: record } of items) {
    if ('problem' in record || record.record_type !== 'speaker' || record.email === '') continue;
    const email = fold(record.email);
    const first = firstId.get(email);
    if (first === undefined) firstId.set(email, record.id);
    else movedTo.set(record.id, first);
  }
  if (movedTo.size === 0) return items;
  const links = new Set<string>();
  const out: T[] = [];
  for (const located of items) {
    const record = located.item;
    if ('problem' in record) out.push(located);
    else if (record.record_type === 'speaker') {
      if (!movedTo.has(record.id)) out.push(located);
    } else if (record.record_type === 'speaker_link') {
      const speaker = movedTo.get(record.speaker_id) ?? record.speaker_id;
      const pair = `${record.session_id}\u0000${speaker}`;
      if (links.has(pair)) continue;
      links.add(pair);
      out.push(
        speaker === record.speaker_id ? located : { ...located, item: { ...record, speaker_id: speaker } },
      );
    } else out.push(located);
  }
  logger?.info(
    { speakers: movedTo.size, examples: [...movedTo].slice(0, 5).map(([from, to]) => `${from} → ${to}`) },
    'speakers of the export that the speaker list gives the same e-mail are taken as one person: their links go to the first',
  );
  return out;
}

/** Join key → the row that carries it; a key on rows that disagree is ambiguous. */
class KeyIndex {
  private readonly rows = new Map<string, number | 'ambiguous'>();
  private readonly values = new Map<string, string>();

  /** `value`: what the row would fill in; rows that agree on it are one person. */
  add(key: string, index: number, value: string): void {
    if (key === '') return;
    const seen = this.rows.get(key);
    if (seen === undefined) {
      this.rows.set(key, index);
      this.values.set(key, value);
    } else if (seen !== 'ambiguous' && this.values.get(key) !== value) {
      // Two rows that fill in the same values (the same person listed under two ids) are
      // one; rows that disagree are not.
      this.rows.set(key, 'ambiguous');
    }
  }

  get(key: string): number | 'ambiguous' | undefined {
    return this.rows.get(key);
  }
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
function textRow(values: Record<string, unknown>, header: ReadonlyMap<string, string>): Row {
  const row: Row = {};
  for (const [named, column] of header) {
    const value = values[column];
    row[named] = cellText(value);
  }
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

function logJoin(outcome: JoinOutcome, unreadable: number, source: string, logger?: Logger): void {
  const { matched, unmatched, ambiguous } = outcome;
  const fields = {
    joined: source,
    speakers: outcome.speakers,
    matchedById: matched.id,
    matchedByEmail: matched.email,
    matchedByName: matched.name,
    unusedRows: outcome.unusedRows,
    ...(unreadable > 0 ? { unreadableRows: unreadable } : {}),
  };
  if (unmatched.count === 0 && ambiguous.count === 0) {
    logger?.info(fields, 'every speaker of the export matched a row of the joined speaker list');
    return;
  }
  logger?.warn(
    {
      ...fields,
      unmatched: unmatched.count,
      unmatchedExamples: unmatched.examples,
      ...(ambiguous.count > 0 ? { ambiguous: ambiguous.count, ambiguousExamples: ambiguous.examples } : {}),
    },
    'some speakers of the export matched no row of the joined speaker list (or matched rows that disagree): they keep what the export has; add them to the list, or give it the export’s speaker ids',
  );
}
