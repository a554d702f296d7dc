import { CODE } from '../../errors/codes.js';
import type { Logger } from '../../log/logger.js';
import { nameWords, namesAgree } from '../../model/person.js';
import type { ScheduleRecord, ScheduleRecordProblem } from './schedule-records.js';
import {
  fold,
  JOINED_SPEAKER_COLUMNS,
  readSpeakerList,
  type ListRow,
  type SpeakerJoin,
} from './speaker-list.js';

export { JOINED_SPEAKER_COLUMNS, type SpeakerJoin } from './speaker-list.js';

type Speaker = ScheduleRecord<'speaker'>;

/** A list row whose id names a person of the export under another name. */
export interface JoinConflict {
  /** The export's id, as the list writes it. */
  id: string;
  /** The export's name(s) of that id. */
  exportNames: string[];
  listName: string;
  where: string;
  /** The export's speaker it is about, when the id is one person's; else the id is shared. */
  speaker?: Speaker;
  message: string;
}

/** How the speakers of an export met the joined rows, for the log, `plan` and the tests. */
export interface JoinOutcome {
  speakers: number;
  /** By id alone (the list has no name for the row), by id and an agreeing name, by e-mail, by name. */
  matched: { id: number; idName: number; email: number; name: number };
  /** Speakers no row matched (their ids, at most 5). */
  unmatched: { count: number; examples: string[] };
  /** Join keys carried by several rows with different values: not used (at most 5). */
  ambiguous: { count: number; examples: string[] };
  /** Rows whose id names another person in the export: no e-mail is taken from them. */
  conflicts: JoinConflict[];
  /** Rows of the joined source that matched no speaker. */
  unusedRows: number;
  /**
   * The columns each speaker took from a row of the list (a speaker that took none is not
   * here), with that row's place: a bad value there is the list's to mend, and the row's
   * messages say where it is.
   */
  filledFrom: Map<Speaker, Record<string, string>>;
}

type By = 'id' | 'idName' | 'email' | 'name';

/**
 * Fills the speakers' e-mails (and names, company, when asked) from the joined rows
 * (docs/sources.md, "Speakers' e-mails from a second source"):
 * - a row whose id is the export's names that person: when the list also gives a name, the
 *   two must agree (`namesAgree`), else the row is a conflict and fills nobody; an id the
 *   export gives to several people (a merged schedule, `3~hash`) is matched by id and name
 *   together;
 * - other rows match by e-mail, else by full name.
 * A key two rows share with different values matches nothing: guessing would give one
 * person another's e-mail.
 */
export async function joinSpeakers(
  speakers: Speaker[],
  join: SpeakerJoin,
  logger?: Logger,
): Promise<JoinOutcome> {
  const list = await readSpeakerList(join);
  const outcome: JoinOutcome = {
    speakers: speakers.length,
    matched: { id: 0, idName: 0, email: 0, name: 0 },
    unmatched: { count: 0, examples: [] },
    ambiguous: { count: 0, examples: [] },
    conflicts: [],
    unusedRows: 0,
    filledFrom: new Map(),
  };
  const byExportId = new Map<string, Speaker[]>();
  for (const speaker of speakers)
    for (const id of exportIds(speaker)) {
      const people = byExportId.get(id);
      if (people) people.push(speaker);
      else byExportId.set(id, [speaker]);
    }

  // Rows by the speaker their id (and name) names; rows whose id the export does not have
  // are matched by e-mail and name instead.
  const byId = new Map<Speaker, Array<{ row: ListRow; by: By }>>();
  const conflicted = new Set<Speaker>();
  const byEmail = new KeyIndex();
  const byName = new KeyIndex();
  const rowsUsed = new Set<ListRow>();
  for (const row of list.rows) {
    const people = row.id === '' ? undefined : byExportId.get(row.id);
    if (people === undefined) {
      byEmail.add(row.email, row);
      byName.add(fold(row.name), row);
      continue;
    }
    if (row.name === '') {
      // An id alone names one person; an id the export gives to several names nobody.
      if (people.length === 1) addTo(byId, people[0]!, { row, by: 'id' });
      else ambiguous(outcome, `id ${row.id} (${people.length} people in the export; the list gives no name)`);
      continue;
    }
    // The same name first: under a shared id, "Max" agrees with every Max, "Max Power" with one.
    const same = people.filter((speaker) => sameWords(speaker.full_name, row.name));
    const agreeing =
      same.length > 0 ? same : people.filter((speaker) => namesAgree(speaker.full_name, row.name));
    if (agreeing.length === 1) addTo(byId, agreeing[0]!, { row, by: 'idName' });
    else if (agreeing.length > 1) ambiguous(outcome, `id ${row.id} (${row.name})`);
    else {
      const conflict = conflictOf(row, people);
      outcome.conflicts.push(conflict);
      if (conflict.speaker) conflicted.add(conflict.speaker);
    }
  }

  for (const speaker of speakers) {
    const found = matchOne(speaker);
    if (found === undefined) {
      if (conflicted.has(speaker)) continue;
      outcome.unmatched.count++;
      if (outcome.unmatched.examples.length < 5)
        outcome.unmatched.examples.push(`${speaker.id} (${speaker.full_name})`);
      continue;
    }
    outcome.matched[found.by]++;
    rowsUsed.add(found.row);
    const filled: Record<string, string> = {};
    for (const column of JOINED_SPEAKER_COLUMNS) {
      const value = found.row.fills[column];
      if (value === undefined) continue;
      speaker[column] = value;
      filled[column] = found.row.where;
    }
    if (Object.keys(filled).length > 0) outcome.filledFrom.set(speaker, filled);
  }
  outcome.unusedRows = list.rows.length - rowsUsed.size - outcome.conflicts.length;
  logJoin(outcome, list.unreadable, join.source.description, logger);
  return outcome;

  function matchOne(speaker: Speaker): { row: ListRow; by: By } | undefined {
    const own = byId.get(speaker);
    if (own !== undefined) {
      // Two rows of one person that fill in the same values are one; rows that disagree are not.
      if (own.every((one) => one.row.fillsKey === own[0]!.row.fillsKey)) return own[0];
      ambiguous(outcome, `speaker ${speaker.id} (${speaker.full_name})`);
      return undefined;
    }
    // A person whose id a row gives to someone else takes no row by e-mail or name either.
    if (conflicted.has(speaker)) return undefined;
    const tries: Array<[KeyIndex, string, By]> = [
      [byEmail, fold(speaker.email), 'email'],
      [byName, fold(speaker.full_name), 'name'],
    ];
    let guessed = false;
    for (const [index, key, by] of tries) {
      const row = key === '' ? undefined : index.get(key);
      if (row === 'ambiguous') guessed = true;
      else if (row !== undefined) return { row, by };
    }
    if (guessed) ambiguous(outcome, `speaker ${speaker.id} (${speaker.full_name})`);
    return undefined;
  }
}

/** The ids a list may name a speaker by: the export's id (a split person's without its `~hash`) and its code. */
function exportIds(speaker: Speaker): string[] {
  const tilde = speaker.id.indexOf('~');
  const id = tilde === -1 ? speaker.id : speaker.id.slice(0, tilde);
  return [...new Set([id, speaker.code].filter((one) => one !== ''))];
}

function conflictOf(row: ListRow, people: readonly Speaker[]): JoinConflict {
  const exportNames = people.map((speaker) => speaker.full_name);
  const named = exportNames.map((name) => `"${name}"`).join(', ');
  const speaker = people.length === 1 ? people[0] : undefined;
  const whose = speaker ? `speaker ${row.id} ${named}` : `id ${row.id} (the export's ${named})`;
  return {
    id: row.id,
    exportNames,
    listName: row.name,
    where: row.where,
    ...(speaker ? { speaker } : {}),
    message:
      `${whose}: the speaker list's ${row.where} gives id ${row.id} to "${row.name}"; ` +
      `the id and the name disagree, so no e-mail is taken from that row: correct the id or the name in the speaker list`,
  };
}

const sameWords = (a: string, b: string): boolean => nameWords(a).join(' ') === nameWords(b).join(' ');

function addTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const values = map.get(key);
  if (values) values.push(value);
  else map.set(key, [value]);
}

function ambiguous(outcome: JoinOutcome, what: string): void {
  outcome.ambiguous.count++;
  if (outcome.ambiguous.examples.length < 5) outcome.ambiguous.examples.push(what);
}

/** What `evsync plan` says of a join: how each speaker was matched, and each conflict. */
export function joinLines(outcome: JoinOutcome, list: string): string[] {
  const { matched, unmatched, ambiguous, conflicts } = outcome;
  const lines = [
    `${list}: of ${outcome.speakers} speakers, ${matched.idName} matched by id and name, ${matched.id} by id alone, ` +
      `${matched.email} by e-mail, ${matched.name} by name; ${unmatched.count} matched no row` +
      (ambiguous.count > 0 ? `, ${ambiguous.count} rows disagreed and were not used` : '') +
      `; ${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'}.`,
  ];
  for (const conflict of conflicts.slice(0, 5)) lines.push(`  conflict: ${conflict.message}`);
  if (conflicts.length > 5) lines.push(`  … and ${conflicts.length - 5} more conflicts (see the log)`);
  return lines;
}

/**
 * The speakers that a join conflict leaves without a row: each becomes a problem of its own,
 * naming both names and the id, so that `validate`, `plan` and `run` report it as a failed
 * row (and the run exits 1) instead of syncing the person with nobody's e-mail.
 */
export function conflictProblems(outcome: JoinOutcome): Map<Speaker, ScheduleRecordProblem> {
  const problems = new Map<Speaker, ScheduleRecordProblem>();
  for (const conflict of outcome.conflicts) {
    if (conflict.speaker === undefined || problems.has(conflict.speaker)) continue;
    problems.set(conflict.speaker, {
      problem: { code: CODE.SCHEDULE_SPEAKER_LIST_CONFLICT, message: conflict.message, kind: 'user' },
    });
  }
  return problems;
}

type AnyRecord =
  | ScheduleRecord<'session'>
  | ScheduleRecord<'speaker'>
  | ScheduleRecord<'speaker_link'>
  | ScheduleRecordProblem;

/**
 * Speakers the joined list gave the same e-mail under names that agree are one person (the
 * platform keeps one user per e-mail): a merged schedule lists someone under two ids when
 * they speak in two sub-schedules. The first keeps its id, the others' links move to it (a
 * link twice to one session is kept once), and their records go. Speakers given one e-mail
 * under different names stay apart: the mapping reports them as people sharing an e-mail
 * (`on_shared_email`). What was merged is logged.
 */
export function oneSpeakerPerEmail<T extends { item: AnyRecord }>(items: T[], logger?: Logger): T[] {
  const first = new Map<string, Speaker>();
  const movedTo = new Map<string, string>();
  for (const { item: record } of items) {
    if ('problem' in record || record.record_type !== 'speaker' || record.email === '') continue;
    const email = fold(record.email);
    const earlier = first.get(email);
    if (earlier === undefined) first.set(email, record);
    else if (namesAgree(earlier.full_name, record.full_name)) movedTo.set(record.id, earlier.id);
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
    'speakers of the export that the speaker list gives the same e-mail (under the same name) are taken as one person: their links go to the first',
  );
  return out;
}

/** Join key → the row that carries it; a key on rows that disagree is ambiguous. */
class KeyIndex {
  private readonly rows = new Map<string, ListRow | 'ambiguous'>();

  add(key: string, row: ListRow): void {
    if (key === '') return;
    const seen = this.rows.get(key);
    if (seen === undefined) this.rows.set(key, row);
    // Two rows that fill in the same values (the same person listed twice) are one; rows
    // that disagree are not.
    else if (seen !== 'ambiguous' && seen.fillsKey !== row.fillsKey) this.rows.set(key, 'ambiguous');
  }

  get(key: string): ListRow | 'ambiguous' | undefined {
    return this.rows.get(key);
  }
}

function logJoin(outcome: JoinOutcome, unreadable: number, source: string, logger?: Logger): void {
  const { matched, unmatched, ambiguous, conflicts } = outcome;
  const fields = {
    joined: source,
    speakers: outcome.speakers,
    matchedById: matched.id,
    matchedByIdAndName: matched.idName,
    matchedByEmail: matched.email,
    matchedByName: matched.name,
    unusedRows: outcome.unusedRows,
    ...(unreadable > 0 ? { unreadableRows: unreadable } : {}),
  };
  for (const conflict of conflicts) logger?.warn({ joined: source, id: conflict.id }, conflict.message);
  if (unmatched.count === 0 && ambiguous.count === 0 && conflicts.length === 0) {
    logger?.info(fields, 'every speaker of the export matched a row of the joined speaker list');
    return;
  }
  logger?.warn(
    {
      ...fields,
      ...(conflicts.length > 0 ? { conflicts: conflicts.length } : {}),
      unmatched: unmatched.count,
      unmatchedExamples: unmatched.examples,
      ...(ambiguous.count > 0 ? { ambiguous: ambiguous.count, ambiguousExamples: ambiguous.examples } : {}),
    },
    conflicts.length > 0
      ? 'some rows of the joined speaker list give an export id to another name: those speakers get no e-mail and fail; some others may have matched no row'
      : 'some speakers of the export matched no row of the joined speaker list (or matched rows that disagree): they keep what the export has; add them to the list, or give it the export’s speaker ids',
  );
}
