/**
 * IANA time zones through the runtime's own zone data (`Intl`), so no dependency and the
 * same DST rules as the platform's clients. Sources and mapping transforms both turn wall
 * times into instants with offsets through this one file.
 */
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

/** The zone's offset from UTC, in minutes east, at the instant `epochMs`. */
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

/**
 * The offsets under which a wall time (given as if it were UTC) names a real instant in
 * the zone, largest (earliest instant) first: none in the hour the clocks skip, two in the
 * hour they repeat. `before` is the offset in force a day earlier, for callers that read a
 * skipped time as if the clocks had not changed yet.
 */
export function wallTimeOffsets(wallAsUtcMs: number, zone: string): { valid: number[]; before: number } {
  const before = offsetMinutesAt(zone, wallAsUtcMs - DAY_MS);
  const candidates = new Set([before, offsetMinutesAt(zone, wallAsUtcMs + DAY_MS)]);
  const valid = [...candidates]
    .filter((offset) => offsetMinutesAt(zone, wallAsUtcMs - offset * 60_000) === offset)
    .sort((a, b) => b - a);
  return { valid, before };
}

/** `+02:00`, `-05:30`, `+00:00`. */
export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
