import { z } from 'zod';
import type { Logger } from '../../log/logger.js';
import { PersonIds, SlotIds } from './schedule-identity.js';
import type { ScheduleClock } from './schedule-clock.js';
import {
  scheduleRecord,
  sessionProblem,
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

const id = z.union([z.string(), z.number()]);
const text = z.string().nullish();
const link = z.looseObject({ url: text, href: text, title: text, type: text });

const person = z.looseObject({
  id: id.nullish(),
  code: text,
  guid: text,
  public_name: text,
  name: text,
  full_public_name: text,
  biography: text,
  avatar: text,
  email: text,
  links: z.array(link).nullish(),
  answers: z.array(z.unknown()).nullish(),
});

const event = z.looseObject({
  id: id.nullish(),
  guid: text,
  date: text,
  start: text,
  duration: z.union([z.string(), z.number()]).nullish(),
  room: text,
  title: text,
  subtitle: text,
  track: text,
  type: text,
  language: text,
  abstract: text,
  description: text,
  url: text,
  persons: z.array(person).nullish(),
  answers: z.array(z.unknown()).nullish(),
});

/** The c3voc schedule JSON (pretalx's and frab's export), as far as we read it. */
export const c3vocScheduleSchema = z.looseObject({
  schedule: z.looseObject({
    conference: z.looseObject({
      title: text,
      time_zone_name: text,
      days: z.array(
        z.looseObject({
          date: text,
          rooms: z.record(z.string(), z.array(event)).default({}),
        }),
      ),
    }),
  }),
});
export type C3vocSchedule = z.infer<typeof c3vocScheduleSchema>;
type Person = z.infer<typeof person>;

type AnyScheduleRecord =
  ScheduleRecord<'session'> | ScheduleRecord<'speaker'> | ScheduleRecord<'speaker_link'>;

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
 * time cannot be read is a problem in its place, without its links.
 */
export function c3vocRecords(
  schedule: C3vocSchedule,
  clock: ScheduleClock,
  logger?: Logger,
): Array<AnyScheduleRecord | ScheduleRecordProblem> {
  const allEvents = schedule.schedule.conference.days.flatMap((day) => Object.values(day.rooms).flat());
  const people = new PersonIds(allEvents.flatMap((entry) => entry.persons ?? []));
  people.report(normalizeText(schedule.schedule.conference.title) || 'the schedule', logger);
  const personId = (entry: Person): string => people.id(entry);
  const slots = new SlotIds();
  const sessions: Array<ScheduleRecord<'session'> | ScheduleRecordProblem> = [];
  const speakers = new Map<string, { person: Person; sessionIds: string[] }>();
  const links: ScheduleRecord<'speaker_link'>[] = [];

  for (const day of schedule.schedule.conference.days) {
    for (const [roomName, events] of Object.entries(day.rooms)) {
      for (const entry of events) {
        const exportId = idString(entry.id) || idString(entry.guid);
        const when = entry.date || (day.date && entry.start ? `${day.date.slice(0, 10)}T${entry.start}` : '');
        const persons = entry.persons ?? [];
        let start;
        try {
          start = when ? clock.resolve(when, `session ${exportId} date`) : undefined;
        } catch (error) {
          sessions.push(sessionProblem(error, persons.length));
          continue;
        }
        const sessionId = slots.id(entry.guid, entry.id, start?.iso);
        const minutes = durationMinutes(entry.duration);
        const speakerIds = persons.map(personId).filter(Boolean);
        sessions.push(
          scheduleRecord('session', {
            id: sessionId,
            guid: normalizeText(entry.guid),
            title: normalizeText(entry.title),
            subtitle: normalizeText(entry.subtitle),
            abstract: normalizeText(entry.abstract),
            description: normalizeText(entry.description),
            start: start?.iso,
            end: start && minutes !== undefined ? clock.after(start, minutes) : undefined,
            duration_minutes: minutes === undefined ? undefined : String(minutes),
            timezone: start?.zoned ? clock.zone : undefined,
            room: normalizeText(entry.room) || roomName,
            track: normalizeText(entry.track),
            language: normalizeText(entry.language),
            format: normalizeText(entry.type),
            is_service_session: speakerIds.length === 0 ? 'true' : 'false',
            url: normalizeText(entry.url),
            speaker_ids: speakerIds.join(','),
            answers: answersOf(entry.answers),
          }),
        );
        persons.forEach((entryPerson, index) => {
          const speakerId = personId(entryPerson);
          if (speakerId === '') return;
          const known = speakers.get(speakerId) ?? { person: entryPerson, sessionIds: [] };
          known.sessionIds.push(sessionId);
          speakers.set(speakerId, known);
          links.push(
            scheduleRecord('speaker_link', {
              session_id: sessionId,
              speaker_id: speakerId,
              role: 'speaker',
              position: String(index + 1),
            }),
          );
        });
      }
    }
  }

  const speakerRecords = [...speakers].map(([speakerId, { person: entry, sessionIds }]) => {
    const fullName =
      normalizeText(entry.public_name) || normalizeText(entry.full_public_name) || normalizeText(entry.name);
    const { first, last } = splitFullName(fullName);
    const personLinks: ScheduleLink[] = (entry.links ?? []).map((item) => ({
      title: normalizeText(item.title),
      url: normalizeText(item.url ?? item.href),
      type: normalizeText(item.type),
    }));
    return scheduleRecord('speaker', {
      id: speakerId,
      first_name: first,
      last_name: last,
      full_name: fullName,
      email: normalizeText(entry.email),
      bio: normalizeText(entry.biography),
      photo_url: normalizeText(entry.avatar),
      ...linkColumns(personLinks),
      links: JSON.stringify(personLinks),
      session_ids: sessionIds.join(','),
      answers: answersOf(entry.answers),
    });
  });
  return [...sessions, ...speakerRecords, ...links];
}
