import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import { formatOffset, isTimeZone, offsetMinutesAt, wallTimeOffsets } from '../../time/time-zone.js';

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;
const WITH_OFFSET = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)\s*(Z|[+-]\d{2}:?\d{2})$/i;

/** Throws a ConfigError naming the setting when the zone is not an IANA zone. */
export function checkTimeZone(zone: string, where: string): void {
  if (!isTimeZone(zone)) {
    throw new ConfigError(
      `${where}: "${zone}" is not an IANA time zone: write e.g. Europe/Berlin or America/New_York`,
      {
        code: CODE.SOURCE_BAD_TIMEZONE,
      },
    );
  }
}

/** True when the text already carries `Z` or a `±hh:mm` offset. */
export function hasOffset(text: string): boolean {
  return WITH_OFFSET.test(text.trim());
}

/**
 * The instant a wall-clock time in `zone` names. In the hour skipped by a DST change the
 * clock is read as if it had not changed yet (02:30 becomes 03:30 summer time); in the hour
 * repeated by it, the first of the two is taken.
 */
export function instantInZone(local: string, zone: string): number | undefined {
  const match = LOCAL.exec(local.trim());
  if (match === null) return undefined;
  const [y, mo, d, h, mi, s] = match.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s);
  const { valid, before } = wallTimeOffsets(asUtc, zone);
  return asUtc - (valid[0] ?? before) * 60_000;
}

/** `2024-03-31T03:30:00+02:00`: the instant as wall time in `zone`, with its offset. */
export function formatInZone(epochMs: number, zone: string): string {
  return formatWithOffset(epochMs, offsetMinutesAt(zone, epochMs));
}

export function formatWithOffset(epochMs: number, offsetMinutes: number): string {
  const wall = new Date(epochMs + offsetMinutes * 60_000).toISOString().slice(0, 19);
  return `${wall}${formatOffset(offsetMinutes)}`;
}

/** Offset in minutes written in an ISO time (`Z` → 0), or undefined without one. */
export function writtenOffsetMinutes(text: string): number | undefined {
  const offset = WITH_OFFSET.exec(text.trim())?.[3];
  if (offset === undefined) return undefined;
  if (offset.toUpperCase() === 'Z') return 0;
  const digits = offset.replace(':', '');
  const minutes = Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5));
  return digits.startsWith('-') ? -minutes : minutes;
}
