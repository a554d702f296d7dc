/**
 * Microsecond timestamps. `Date` keeps milliseconds only; the spec's user and event times
 * carry six fractional digits, so the sandbox adds the sub-millisecond part from the
 * high-resolution clock and never lets two stamps of one process be equal.
 */
let last = 0;

export function nowMicros(): number {
  const hr = process.hrtime.bigint();
  const micros = Date.now() * 1000 + Number((hr / 1000n) % 1000n);
  last = micros > last ? micros : last + 1;
  return last;
}

/** `2026-11-22T01:40:19.123456Z` (spec §2.1, users and events). */
export function isoMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const fraction = String(micros % 1_000_000).padStart(6, '0');
  return `${new Date(ms).toISOString().slice(0, 19)}.${fraction}Z`;
}

/** `{json_class: 'Time', s, n}` of check-in JSON; `n` is the nanosecond part. */
export function rubyTime(micros: number): { json_class: 'Time'; s: number; n: number } {
  return { json_class: 'Time', s: Math.floor(micros / 1_000_000), n: (micros % 1_000_000) * 1000 };
}

/** ISO 8601 with seconds and `Z`, as XML check-ins and Atom `updated` show. */
export function isoSeconds(micros: number): string {
  return `${new Date(Math.floor(micros / 1000)).toISOString().slice(0, 19)}Z`;
}

const XML_DATE_TIME = /^(-?\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * Parses an XML Schema dateTime into epoch microseconds, or `undefined` when it is not
 * one. Without an offset the time is taken as UTC (the spec advises sending one).
 */
export function parseXmlDateTime(text: string): number | undefined {
  const match = XML_DATE_TIME.exec(text.trim());
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction = '', zone = 'Z'] = match;
  const base = Date.UTC(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour),
    Number(minute),
    Number(second),
  );
  if (Number.isNaN(base)) return undefined;
  const check = new Date(base);
  if (check.getUTCDate() !== Number(day) || check.getUTCMonth() !== Number(month) - 1) return undefined;
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    offsetMinutes = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  }
  const micros = Number(fraction.padEnd(6, '0').slice(0, 6) || '0');
  return (base - offsetMinutes * 60_000) * 1000 + micros;
}
