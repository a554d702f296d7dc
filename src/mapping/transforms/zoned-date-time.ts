/** A wall-clock date and time, as written in a source, without a zone. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** Whether the runtime's time-zone database knows this IANA zone name. */
export function isTimeZone(zone: string): boolean {
  try {
    formatterFor(zone);
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC, in minutes, at the instant `epochMs`. */
export function offsetMinutesAt(zone: string, epochMs: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(zone).formatToParts(epochMs)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const asUtc = Date.UTC(
    parts.year ?? 0,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return Math.round((asUtc - Math.floor(epochMs / 1000) * 1000) / 60_000);
}

export type ZonedResult = { ok: true; iso: string } | { ok: false; reason: string };

/**
 * The instant a wall time names in a zone, written as ISO 8601 with that zone's offset
 * (`2026-03-28T08:00:00+01:00`). DST is taken from the runtime's zone data: a time that
 * the clocks skip is refused; a time that happens twice (clocks go back) is the first one.
 */
export function zonedWallTimeToIso(wall: WallTime, zone: string): ZonedResult {
  const wallAsUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  // The offsets a day either side cover any transition near this wall time; a reading is
  // valid when the zone has that offset at the instant it gives.
  const candidates = new Set([
    offsetMinutesAt(zone, wallAsUtc - DAY_MS),
    offsetMinutesAt(zone, wallAsUtc + DAY_MS),
  ]);
  const valid = [...candidates].filter((c) => offsetMinutesAt(zone, wallAsUtc - c * 60_000) === c);
  if (valid.length === 0) return { ok: false, reason: `does not exist in ${zone} (the clocks skip it)` };
  // The larger offset is the earlier instant: the first of a repeated hour.
  const offset = Math.max(...valid);
  return { ok: true, iso: `${formatWall(wall)}${formatOffset(offset)}` };
}

export function formatWall(wall: WallTime): string {
  return `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}`;
}

export function formatOffset(minutes: number): string {
  if (minutes === 0) return '+00:00';
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}
