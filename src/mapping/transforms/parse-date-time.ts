import { quote } from '../../platform/write-params/text-rules.js';
import { formatOffset } from '../../time/time-zone.js';
import { formatWall, zonedWallTimeToIso, type WallTime } from './zoned-date-time.js';

export interface DateTimeOptions {
  /** IANA zone for a value written without an offset. */
  timezone: string;
  /**
   * How to read `03/04/2026`. Without it, a value whose day and month could be swapped is
   * an error (a day above 12 settles it either way).
   */
  dateOrder?: 'dmy' | 'mdy' | undefined;
}

export type DateTimeResult = { ok: true; value: string } | { ok: false; message: string };

const ISO =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const NUMERIC =
  /^(\d{1,2})([/.-])(\d{1,2})\2(\d{4})(?:[ T,]+(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*([AaPp]\.?[Mm]\.?)?)?$/;

/**
 * Reads the date-time forms that exports use (`2026-03-28 08:00`, `28/03/2026 08:00`,
 * `3/28/2026 8:00 AM`, `28.03.2026`, ISO 8601 with or without an offset) and writes ISO 8601
 * with an offset, the form the platform's `event[start]` wants. A value that carries an offset
 * keeps it; one without is read in the given zone.
 */
export function parseDateTime(text: string, options: DateTimeOptions): DateTimeResult {
  const value = text.trim();
  const iso = ISO.exec(value);
  if (iso) {
    const [, y, mo, d, h, mi, s, offset] = iso;
    const wall = { year: +y!, month: +mo!, day: +d!, hour: +(h ?? 0), minute: +(mi ?? 0), second: +(s ?? 0) };
    return finish(value, wall, options.timezone, offset);
  }
  const numeric = NUMERIC.exec(value);
  if (numeric) {
    const [, a, , b, y, h, mi, s, meridiem] = numeric;
    const order = dayMonthOrder(+a!, +b!, options.dateOrder);
    if (order === undefined) {
      return fail(
        value,
        'could be day/month or month/day: set date_order (dmy or mdy) in the datetime transform',
      );
    }
    const [day, month] = order === 'dmy' ? [+a!, +b!] : [+b!, +a!];
    let hour = +(h ?? 0);
    if (meridiem !== undefined) {
      if (hour < 1 || hour > 12) return fail(value, 'has an hour outside 1–12 with AM/PM');
      const pm = /^p/i.test(meridiem);
      hour = (hour % 12) + (pm ? 12 : 0);
    }
    return finish(
      value,
      { year: +y!, month, day, hour, minute: +(mi ?? 0), second: +(s ?? 0) },
      options.timezone,
    );
  }
  return fail(
    value,
    'is not a date and time in a known form (2026-03-28 08:00, 28/03/2026 08:00, 3/28/2026 8:00 AM, ISO 8601)',
  );
}

function dayMonthOrder(
  a: number,
  b: number,
  configured: 'dmy' | 'mdy' | undefined,
): 'dmy' | 'mdy' | undefined {
  if (configured !== undefined) return configured;
  if (a > 12 && b <= 12) return 'dmy';
  if (b > 12 && a <= 12) return 'mdy';
  return a === b ? 'dmy' : undefined;
}

function finish(value: string, wall: WallTime, zone: string, offset?: string): DateTimeResult {
  if (!isValidWall(wall)) return fail(value, 'is not a real date and time');
  if (offset !== undefined) return { ok: true, value: `${formatWall(wall)}${offsetText(offset)}` };
  const zoned = zonedWallTimeToIso(wall, zone);
  return zoned.ok ? { ok: true, value: zoned.iso } : fail(value, zoned.reason);
}

function offsetText(offset: string): string {
  if (/^z$/i.test(offset)) return '+00:00';
  const digits = offset.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
  return formatOffset(offset.startsWith('-') ? -minutes : minutes);
}

function isValidWall(w: WallTime): boolean {
  if (w.month < 1 || w.month > 12 || w.day < 1 || w.hour > 23 || w.minute > 59 || w.second > 59) return false;
  return w.day <= new Date(Date.UTC(w.year, w.month, 0)).getUTCDate();
}

function fail(value: string, reason: string): DateTimeResult {
  return { ok: false, message: `${quote(value)} ${reason}` };
}
