/**
 * Moments to the minute in one named zone, with UTC beside them when the zone is another:
 * what a person reads in a notice and in `evsync status` (docs/notifications.md, "Times").
 * The zone's rules come from the runtime's own data (`Intl`), as in `time-zone.ts`.
 */

/** The zone of this process (`TZ`, else the machine's): what a job without a schedule is shown in. */
export function processZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** `2026-11-28 23:43`: the wall time in `zone`. */
export function wallMinute(date: Date, zone: string): string {
  return date.toLocaleString('sv-SE', { timeZone: zone }).slice(0, 16);
}

/** `2026-11-28 23:43 Europe/Berlin (22:43 UTC)`; in UTC: `2026-11-28 22:43 UTC`. */
export function zonedMinute(date: Date, zone: string): string {
  if (isUtc(zone)) return `${wallMinute(date, 'UTC')} UTC`;
  return `${wallMinute(date, zone)} ${zone} (${date.toISOString().slice(11, 16)} UTC)`;
}

/** `23:43` in `zone`: a time inside a span that `zonedMinute` named the day and zone of. */
export function wallClock(date: Date, zone: string): string {
  return wallMinute(date, zone).slice(11);
}

function isUtc(zone: string): boolean {
  return ['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT', 'Universal', 'Zulu'].includes(zone);
}
