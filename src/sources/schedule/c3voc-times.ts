import type { ResolvedTime, ScheduleClock } from './schedule-clock.js';
import type { Day } from './c3voc-schema.js';
import type { Listed } from './c3voc-sessions.js';

/**
 * When a c3voc session starts: its date and time, or a wall-clock time on its conference
 * day, placed in the day's window (docs/sources.md, "Times").
 */

/** When a conference day begins and ends (epoch ms), as far as the export says. */
export interface DayWindow {
  start?: number | undefined;
  end?: number | undefined;
}

const DAY_MS = 86_400_000;

/** `hh:mm[:ss]` → minutes after midnight. */
export function minutesOfDay(value: string | null | undefined): number | undefined {
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
export function dayWindow(listedDay: Day | undefined, clock: ScheduleClock): DayWindow {
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
export function startOf(
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
