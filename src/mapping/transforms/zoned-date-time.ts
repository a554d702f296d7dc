import { formatOffset, wallTimeOffsets } from '../../time/time-zone.js';

/** A wall-clock date and time, as written in a source, without a zone. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export type ZonedResult = { ok: true; iso: string } | { ok: false; reason: string };

/**
 * The instant a wall time names in a zone, written as ISO 8601 with that zone's offset
 * (`2026-03-28T08:00:00+01:00`). DST is taken from the runtime's zone data: a time that
 * the clocks skip is refused; a time that happens twice (clocks go back) is the first one.
 */
export function zonedWallTimeToIso(wall: WallTime, zone: string): ZonedResult {
  const wallAsUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  const [offset] = wallTimeOffsets(wallAsUtc, zone).valid;
  if (offset === undefined) return { ok: false, reason: `does not exist in ${zone} (the clocks skip it)` };
  return { ok: true, iso: `${formatWall(wall)}${formatOffset(offset)}` };
}

export function formatWall(wall: WallTime): string {
  return `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}`;
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}
