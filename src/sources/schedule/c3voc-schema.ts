import { z } from 'zod';

/**
 * The c3voc schedule JSON as far as evsync reads it (pretalx's and frab's export, formats 1
 * and 2; docs/sources.md): parsed at the edge with zod, every object loose.
 */

const id = z.union([z.string(), z.number()]);
const text = z.string().nullish();
/** Format 2 writes some texts per language: `{"en": "…", "de": "…"}`. */
export const localizable = z.union([z.string(), z.record(z.string(), z.string().nullish())]).nullish();
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

export const reference = z
  .union([z.string(), z.looseObject({ name: text, slug: text, guid: text })])
  .nullish();

/** Format 2 (`schedule.events`, c3voc hub): times with offsets, rooms and tracks by reference. */
export const eventV2 = z.looseObject({
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
export type Person = z.infer<typeof person>;
export type Event = z.infer<typeof event>;
export type Day = z.infer<typeof day>;
/** A text format 2 may write per language. */
export type Localizable = z.infer<typeof localizable>;
/** A format 2 event as the export writes it. */
export type EventV2 = z.infer<typeof eventV2>;
/** A room, track or day that a format 2 event names: by name, or an object. */
export type Reference = z.infer<typeof reference>;
