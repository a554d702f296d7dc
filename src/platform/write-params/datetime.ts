import { z } from 'zod';

/**
 * An XML Schema `dateTime` taken apart: `epochSeconds` is the instant when an offset is
 * given, or the wall time read as UTC when it is not (`offsetMinutes` is then `null`);
 * `fraction` holds the fractional-second digits without trailing zeros.
 */
export interface XmlDateTime {
  epochSeconds: number;
  fraction: string;
  offsetMinutes: number | null;
}

// XML Schema 1.0 dateTime limited to four-digit years 0001–9999 (what every platform
// stores); the offset, when present, is `Z` or ±hh:mm up to ±14:00.
const XML_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:(Z)|([+-])(\d{2}):(\d{2}))?$/;

/** Parses `YYYY-MM-DDThh:mm:ss(.fff)?(Z|±hh:mm)?`; `undefined` when it is not one. */
export function parseXmlDateTime(value: string): XmlDateTime | undefined {
  const match = XML_DATE_TIME.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = (match[7] ?? '').replace(/0+$/, '');
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (minute > 59 || second > 59) return undefined;
  // 24:00:00 is allowed by XML Schema 1.0 as the first instant of the next day.
  if (hour > 24 || (hour === 24 && (minute !== 0 || second !== 0 || fraction !== ''))) return undefined;
  let offsetMinutes: number | null = null;
  if (match[8] === 'Z') offsetMinutes = 0;
  else if (match[9]) {
    const offsetHours = Number(match[10]);
    const offsetMins = Number(match[11]);
    if (offsetMins > 59 || offsetHours > 14 || (offsetHours === 14 && offsetMins !== 0)) return undefined;
    offsetMinutes = (match[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const wallSeconds = daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second;
  return { epochSeconds: wallSeconds - (offsetMinutes ?? 0) * 60, fraction, offsetMinutes };
}

/** Whether `value` is an XML Schema dateTime (with or without a time-zone offset). */
export function isXmlDateTime(value: string): boolean {
  return parseXmlDateTime(value) !== undefined;
}

/**
 * Orders two parsed dateTimes: negative when `a` is earlier. Values without an offset are
 * read as UTC; XML Schema calls such mixed comparisons indeterminate, so the mapping layer
 * warns about a missing offset rather than trusting this order.
 */
export function compareXmlDateTimes(a: XmlDateTime, b: XmlDateTime): number {
  if (a.epochSeconds !== b.epochSeconds) return a.epochSeconds - b.epochSeconds;
  const width = Math.max(a.fraction.length, b.fraction.length);
  const fa = a.fraction.padEnd(width, '0');
  const fb = b.fraction.padEnd(width, '0');
  return fa < fb ? -1 : fa > fb ? 1 : 0;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil);
// Date.UTC would read years below 100 as 19xx.
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

export const xmlDateTimeSchema = z.string().refine(isXmlDateTime, {
  message: 'expected an XML Schema dateTime such as 2026-05-04T09:30:00+02:00',
});
