import { CODE } from '../../errors/codes.js';
import type { Logger } from '../../log/logger.js';
import type { ResolvedTime, ScheduleClock } from './schedule-clock.js';
import type { C3vocSchedule, Day, Person } from './c3voc-schema.js';
import { listSessions, textValue } from './c3voc-sessions.js';
import { dayWindow, minutesOfDay, startOf, type DayWindow } from './c3voc-times.js';

import { PersonIds, SlotIds } from './schedule-identity.js';
import {
  scheduleRecord,
  sessionProblem,
  type LocatedScheduleItem,
  type ScheduleRecord,
  type ScheduleRecordProblem,
} from './schedule-records.js';
import {
  durationMinutes,
  idString,
  linkColumns,
  normalizeText,
  splitFullName,
  type ScheduleLink,
} from './schedule-text.js';

export { c3vocScheduleSchema, type C3vocSchedule } from './c3voc-schema.js';

type AnyScheduleRecord =
  ScheduleRecord<'session'> | ScheduleRecord<'speaker'> | ScheduleRecord<'speaker_link'>;

/** What reading the sessions noticed, for the source's warnings. */
export interface C3vocNotes {
  /** Sessions whose start lies outside the conference day they are listed under. */
  outsideDay: string[];
  /** `1` (days/rooms) or `2` (events). */
  format: 1 | 2;
}

/**
 * pretalx answers: `{question: {question: "text"} | "text", answer: "…"}`; anything else is
 * skipped rather than guessed.
 */
function answersOf(list: readonly unknown[] | null | undefined): string {
  const out: Record<string, string> = {};
  for (const entry of list ?? []) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { question, answer } = entry as { question?: unknown; answer?: unknown };
    const title =
      typeof question === 'string'
        ? question
        : typeof question === 'object' && question !== null
          ? (question as { question?: unknown }).question
          : undefined;
    const titleText = typeof title === 'string' ? title : JSON.stringify(title);
    if (titleText && (typeof answer === 'string' || typeof answer === 'number'))
      out[titleText] = normalizeText(answer);
  }
  return JSON.stringify(out);
}

/**
 * Sessions, then each speaker once (with every session), then the links. A session whose
 * time cannot be read, or that has none, is a problem in its place, without its links.
 */
export function c3vocRecords(
  schedule: C3vocSchedule,
  clock: ScheduleClock,
  where: string,
  logger?: Logger,
): { items: LocatedScheduleItem[]; notes: C3vocNotes } {
  const { listed, format } = listSessions(schedule, where);
  // Merged schedules reuse ids: sessions go by guid and time slot, people by id and name
  // (docs/sources.md, "Identities in merged schedules").
  const people = new PersonIds(listed.flatMap((item) => item.event.persons ?? []));
  people.report(normalizeText(schedule.schedule.conference.title) || where, logger);
  const personId = (entry: Person): string => people.id(entry);
  const slots = new SlotIds();
  const dayChange = minutesOfDay(schedule.schedule.conference.day_change);
  const sessions: LocatedScheduleItem[] = [];
  const speakers = new Map<string, { person: Person; sessionIds: string[]; line?: number }>();
  const links: LocatedScheduleItem[] = [];
  const notes: C3vocNotes = { outsideDay: [], format };

  const windows = new Map<Day, DayWindow>();
  for (const item of listed) {
    const { event: entry, roomName } = item;
    let window: DayWindow = {};
    if (item.day !== undefined) {
      window = windows.get(item.day) ?? dayWindow(item.day, clock);
      windows.set(item.day, window);
    }
    const line = entry.source_line ?? undefined;
    const exportId = idString(entry.id) || idString(entry.guid) || idString(entry.code);
    const title = normalizeText(entry.title);
    const label = `session ${exportId || '(no id)'}${title ? ` "${title}"` : ''}`;
    const persons = entry.persons ?? [];
    let start: ResolvedTime | undefined;
    let end: string | undefined;
    let minutes: number | undefined;
    try {
      start = startOf(item, window, clock, dayChange, `session ${exportId}`);
      if (start === undefined) {
        sessions.push({
          item: missingTime(
            label,
            "no start time (a date and time, or the day's date and a start)",
            persons.length,
          ),
          line,
        });
        continue;
      }
      if (entry.end) {
        const endTime = clock.resolve(entry.end, `session ${exportId} end`);
        minutes = Math.round((endTime.epochMs - start.epochMs) / 60_000);
        end = clock.after(start, minutes);
      } else {
        minutes = durationMinutes(entry.duration);
        if (minutes === undefined) {
          const written = normalizeText(entry.duration);
          sessions.push({
            item: missingTime(
              label,
              written ? `a duration "${written}" that is not hh:mm or minutes` : 'no duration',
              persons.length,
            ),
            line,
          });
          continue;
        }
        end = clock.after(start, minutes);
      }
    } catch (error) {
      sessions.push({ item: sessionProblem(error, persons.length, title), line });
      continue;
    }
    if (
      window.start !== undefined &&
      window.end !== undefined &&
      (start.epochMs < window.start || start.epochMs >= window.end)
    )
      notes.outsideDay.push(`${label} at ${start.iso} (day ${item.day?.date ?? '?'})`);

    const sessionId = slots.id(entry.guid, idString(entry.id) || idString(entry.code), start.iso);
    const speakerIds = persons.map(personId).filter(Boolean);
    sessions.push({
      item: scheduleRecord('session', {
        id: sessionId,
        guid: normalizeText(entry.guid),
        title,
        subtitle: normalizeText(entry.subtitle),
        abstract: normalizeText(textValue(entry.abstract)),
        description: normalizeText(textValue(entry.description)),
        start: start.iso,
        end,
        duration_minutes: String(minutes),
        timezone: start.zoned ? clock.zone : undefined,
        room: normalizeText(entry.room) || roomName,
        track: normalizeText(entry.track),
        language: normalizeText(entry.language),
        format: normalizeText(entry.type),
        is_service_session: speakerIds.length === 0 ? 'true' : 'false',
        url: normalizeText(entry.url),
        speaker_ids: speakerIds.join(','),
        answers: answersOf(entry.answers),
      }),
      line,
    });
    persons.forEach((entryPerson, index) => {
      const speakerId = personId(entryPerson);
      if (speakerId === '') return;
      const known = speakers.get(speakerId) ?? { person: entryPerson, sessionIds: [], line };
      known.sessionIds.push(sessionId);
      speakers.set(speakerId, known);
      links.push({
        item: scheduleRecord('speaker_link', {
          session_id: sessionId,
          speaker_id: speakerId,
          role: /moderat/i.test(entryPerson.role ?? '') ? 'moderator' : 'speaker',
          position: String(index + 1),
        }),
        line,
      });
    });
  }

  const speakerRecords = [...speakers].map(([speakerId, { person: entry, sessionIds, line }]) => {
    const fullName =
      normalizeText(entry.public_name) || normalizeText(entry.full_public_name) || normalizeText(entry.name);
    const { first, last } = splitFullName(fullName);
    const personLinks: ScheduleLink[] = (entry.links ?? []).map((item) => ({
      title: normalizeText(item.title),
      url: normalizeText(item.url ?? item.href),
      type: normalizeText(item.type ?? item.service),
    }));
    const record: AnyScheduleRecord = scheduleRecord('speaker', {
      id: speakerId,
      code: normalizeText(entry.code),
      first_name: first,
      last_name: last,
      full_name: fullName,
      email: normalizeText(entry.email),
      bio: normalizeText(textValue(entry.biography)),
      photo_url: normalizeText(typeof entry.avatar === 'string' ? entry.avatar : entry.avatar?.url),
      ...linkColumns(personLinks),
      links: JSON.stringify(personLinks),
      session_ids: sessionIds.join(','),
      answers: answersOf(entry.answers),
    });
    return { item: record, line };
  });
  return { items: [...sessions, ...speakerRecords, ...links], notes };
}

function missingTime(label: string, what: string, links: number): ScheduleRecordProblem {
  const left = links === 0 ? 'it is left out' : `it and its ${links} speaker link(s) are left out`;
  return {
    problem: {
      code: CODE.SCHEDULE_SESSION_TIME_MISSING,
      message: `${label} has ${what}: ${left}; add its time in the export`,
    },
  };
}
