import { CODE } from '../../errors/codes.js';
import { SourceError } from '../source-error.js';
import type { C3vocSchedule, Day, Event, EventV2, Localizable, Person, Reference } from './c3voc-schema.js';
import { idString, normalizeText } from './schedule-text.js';

/**
 * The sessions of a c3voc schedule, whichever of its two formats: format 1 lists them under
 * days and rooms, format 2 (the c3voc hub) on their own with rooms and tracks by reference;
 * format 2 events are read into the format 1 shape.
 */

/** One session as listed: under a day and a room (format 1), or on its own (format 2). */
export interface Listed {
  event: Event;
  roomName: string;
  day?: Day;
}

/**
 * The sessions of either format, or a SourceError when the file has neither shape: a file
 * that is read as "0 sessions" must really have none.
 */
export function listSessions(schedule: C3vocSchedule, where: string): { listed: Listed[]; format: 1 | 2 } {
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
function fromV2(entry: EventV2, context: V2Context): Listed {
  const { conference, language, people } = context;
  const local = (value: Localizable): string | undefined => pickLanguage(value, language);
  const refName = (
    value: Reference,
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

function pickLanguage(value: Localizable, language: string): string | undefined {
  if (value === null || value === undefined || typeof value === 'string') return value ?? undefined;
  return value[language] ?? Object.values(value).find((item) => typeof item === 'string') ?? undefined;
}

/** A localizable text already picked (format 2) or as format 1 writes it. */
export function textValue(value: Localizable): string | undefined {
  return pickLanguage(value, 'en');
}
