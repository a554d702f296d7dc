import { z } from 'zod';
import { CODE } from '../../errors/codes.js';
import { SourceError } from '../source-error.js';
import type { Logger } from '../../log/logger.js';
import type { ResolvedTime, ScheduleClock } from './schedule-clock.js';
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

const id = z.union([z.string(), z.number()]);
const text = z.string().nullish();
/** Format 2 writes some texts per language: `{"en": "…", "de": "…"}`. */
const localizable = z.union([z.string(), z.record(z.string(), z.string().nullish())]).nullish();
const link = z.looseObject({ url: text, href: text, title: text, type: text, service: text });

const person = z.looseObject({
  id: id.nullish(),
  code: text,
  guid: text,
  public_name: text,
  name: text,
  full_public_name: text,
  biography: localizable,
  avatar: z.union([z.string(), z.looseObject({ url: text })]).nullish(),
  email: text,
  role: text,
  links: z.array(link).nullish(),
  answers: z.array(z.unknown()).nullish(),
});

/** A session of format 1 (`days[].rooms`); format 2 events are read into this shape. */
const event = z.looseObject({
  id: id.nullish(),
  guid: text,
  code: text,
  /** Date and time; format 1 writes it with the wall-clock `start`, format 2 as `start`. */
  date: text,
  /** Format 1: wall-clock `hh:mm` on the day. */
  start: text,
  /** Format 2: the end as date and time, instead of a duration. */
  end: text,
  duration: z.union([z.string(), z.number()]).nullish(),
  room: text,
  title: text,
  subtitle: text,
  track: text,
  type: text,
  language: text,
  abstract: localizable,
  description: localizable,
  url: text,
  persons: z.array(person).nullish(),
  answers: z.array(z.unknown()).nullish(),
  /** Line of the `<event>` tag, when read from frab XML. */
  source_line: z.number().nullish(),
});

const day = z.looseObject({
  date: text,
  /** When the conference day begins and ends (the day change): format 1 JSON and XML attributes. */
  day_start: text,
  day_end: text,
  start: text,
  end: text,
  rooms: z.record(z.string(), z.array(event)).nullish(),
});

const reference = z.union([z.string(), z.looseObject({ name: text, slug: text, guid: text })]).nullish();

/** Format 2 (`schedule.events`, c3voc hub): times with offsets, rooms and tracks by reference. */
const eventV2 = z.looseObject({
  id: id.nullish(),
  guid: text,
  code: text,
  type: text,
  start: text,
  end: text,
  duration: z.union([z.string(), z.number()]).nullish(),
  room: reference,
  track: reference,
  title: text,
  subtitle: text,
  language: text,
  abstract: localizable,
  description: localizable,
  url: text,
  participants: z.array(z.looseObject({ guid: text, id: id.nullish(), name: text, role: text })).nullish(),
  persons: z.array(person).nullish(),
  answers: z.array(z.unknown()).nullish(),
});

/** The c3voc schedule JSON (pretalx's and frab's export, formats 1 and 2), as far as we read it. */
export const c3vocScheduleSchema = z.looseObject({
  schedule: z.looseObject({
    version: text,
    conference: z.looseObject({
      title: text,
      time_zone_name: text,
      /** `hh:mm[:ss]` at which one conference day turns into the next (pentabarf/frab XML). */
      day_change: text,
      days: z.array(day).nullish(),
      tracks: z.array(z.looseObject({ name: text, slug: text })).nullish(),
      rooms: z.array(z.looseObject({ name: text, slug: text, guid: text })).nullish(),
      defaults: z.looseObject({ language: text }).nullish(),
      languages: z.array(z.string()).nullish(),
    }),
    events: z.array(eventV2).nullish(),
    persons: z.array(person).nullish(),
  }),
});
export type C3vocSchedule = z.infer<typeof c3vocScheduleSchema>;
type Person = z.infer<typeof person>;
type Event = z.infer<typeof event>;
type Day = z.infer<typeof day>;

type AnyScheduleRecord =
  ScheduleRecord<'session'> | ScheduleRecord<'speaker'> | ScheduleRecord<'speaker_link'>;

/** One session as listed: under a day and a room (format 1), or on its own (format 2). */
interface Listed {
  event: Event;
  roomName: string;
  day?: Day;
}

/** When a conference day begins and ends (epoch ms), as far as the export says. */
interface DayWindow {
  start?: number | undefined;
  end?: number | undefined;
}

const DAY_MS = 86_400_000;

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
 * The sessions of either format, or a SourceError when the file has neither shape: a file
 * that is read as "0 sessions" must really have none.
 */
function listSessions(schedule: C3vocSchedule, where: string): { listed: Listed[]; format: 1 | 2 } {
  const { events, conference } = schedule.schedule;
  if (events !== undefined && events !== null) {
    const context = v2Context(schedule);
    return { listed: events.map((entry) => fromV2(entry, context)), format: 2 };
  }
  const days = conference.days ?? [];
  if (days.length > 0 && days.every((entry) => entry.rooms === undefined || entry.rooms === null)) {
    throw new SourceError(
      `${where} has conference days but no rooms under them and no "events" list: it is neither schedule format 1 (schedule.conference.days[].rooms) nor format 2 (schedule.events): give the full schedule export`,
      { code: CODE.SCHEDULE_UNEXPECTED_SHAPE },
    );
  }
  if (conference.days === undefined || conference.days === null) {
    throw new SourceError(
      `${where} has neither schedule.conference.days (schedule format 1) nor schedule.events (format 2): give the schedule export (pretalx: …/schedule/export/schedule.json or .xml)`,
      { code: CODE.SCHEDULE_UNEXPECTED_SHAPE },
    );
  }
  const listed: Listed[] = [];
  for (const entry of days)
    for (const [roomName, list] of Object.entries(entry.rooms ?? {}))
      for (const session of list) listed.push({ event: session, roomName, day: entry });
  return { listed, format: 1 };
}

/** What format 2 events refer to, looked up once for all of them. */
interface V2Context {
  conference: C3vocSchedule['schedule']['conference'];
  language: string;
  people: Map<string, Person>;
}

function v2Context(schedule: C3vocSchedule): V2Context {
  const { conference, persons } = schedule.schedule;
  return {
    conference,
    language: conference.defaults?.language ?? conference.languages?.[0] ?? 'en',
    people: new Map((persons ?? []).map((item) => [idString(item.guid), item])),
  };
}

/** A format 2 event in the format 1 shape: names looked up, texts in the default language. */
function fromV2(entry: z.infer<typeof eventV2>, context: V2Context): Listed {
  const { conference, language, people } = context;
  const local = (value: z.infer<typeof localizable>): string | undefined => pickLanguage(value, language);
  const refName = (
    value: z.infer<typeof reference>,
    list:
      ReadonlyArray<{ name?: string | null; slug?: string | null; guid?: string | null }> | null | undefined,
  ): string => {
    if (typeof value === 'string') return value;
    if (value === null || value === undefined) return '';
    const found = (list ?? []).find(
      (item) => (value.guid && item.guid === value.guid) || (value.slug && item.slug === value.slug),
    );
    return normalizeText(value.name) || normalizeText(found?.name) || normalizeText(value.slug);
  };
  const persons: Person[] =
    entry.persons ??
    (entry.participants ?? []).map((participant) => {
      const known = people.get(idString(participant.guid));
      return {
        ...known,
        guid: participant.guid,
        id: participant.id,
        name: participant.name ?? known?.name,
        role: participant.role,
      };
    });
  const room = refName(entry.room, conference.rooms);
  return {
    roomName: room,
    event: {
      id: entry.id,
      guid: entry.guid,
      code: entry.code,
      date: entry.start,
      end: entry.end,
      duration: entry.duration,
      room,
      title: entry.title,
      subtitle: entry.subtitle,
      track: refName(entry.track, conference.tracks),
      type: entry.type,
      language: entry.language,
      abstract: local(entry.abstract),
      description: local(entry.description),
      url: entry.url,
      persons: persons.map((item) => ({ ...item, biography: local(item.biography) })),
      answers: entry.answers,
    },
  };
}

function pickLanguage(value: z.infer<typeof localizable>, language: string): string | undefined {
  if (value === null || value === undefined || typeof value === 'string') return value ?? undefined;
  return value[language] ?? Object.values(value).find((item) => typeof item === 'string') ?? undefined;
}

/** `hh:mm[:ss]` → minutes after midnight. */
function minutesOfDay(value: string | null | undefined): number | undefined {
  const match = /^(\d{1,2}):(\d{2})/.exec((value ?? '').trim());
  return match === null ? undefined : Number(match[1]) * 60 + Number(match[2]);
}

/** `2024-12-27` → `2024-12-28`. */
function nextDate(date: string): string {
  const next = new Date(`${date}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}

/** The window of a listed day: its `day_start`/`day_end` (JSON) or `start`/`end` (XML attributes). */
function dayWindow(listedDay: Day | undefined, clock: ScheduleClock): DayWindow {
  if (listedDay === undefined) return {};
  return {
    start: clock.instantOf(listedDay.day_start ?? listedDay.start),
    end: clock.instantOf(listedDay.day_end ?? listedDay.end),
  };
}

/**
 * When a session starts. With a date and time (`date`) that is it. With only a wall-clock
 * `start` on the day, it is that time on the day's date or on the next one, whichever lies
 * in the day's window (from its start to its end, else 24 hours); without a window, a time
 * before the conference's `day_change` is on the next date (after midnight).
 */
function startOf(
  listed: Listed,
  window: DayWindow,
  clock: ScheduleClock,
  dayChange: number | undefined,
  what: string,
): ResolvedTime | undefined {
  const { event: entry, day: listedDay } = listed;
  if (entry.date) return clock.resolve(entry.date, `${what} date`);
  const date = listedDay?.date?.slice(0, 10);
  const wall = minutesOfDay(entry.start);
  if (!date || !entry.start || wall === undefined) {
    if (entry.start) clock.resolve(entry.start, `${what} start`); // unreadable: that session's problem
    return undefined;
  }
  const time = entry.start.trim().padStart(5, '0');
  const onDate = clock.resolve(`${date}T${time}`, `${what} start`);
  const next = (): ResolvedTime => clock.resolve(`${nextDate(date)}T${time}`, `${what} start`);
  if (window.start !== undefined) {
    const end = window.end ?? window.start + DAY_MS;
    const inside = (at: ResolvedTime): boolean => at.epochMs >= (window.start ?? 0) && at.epochMs < end;
    if (inside(onDate)) return onDate;
    const after = next();
    return inside(after) ? after : onDate;
  }
  return dayChange !== undefined && wall < dayChange ? next() : onDate;
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

/** A localizable text already picked (format 2) or as format 1 writes it. */
function textValue(value: z.infer<typeof localizable>): string | undefined {
  return pickLanguage(value, 'en');
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
