/** `2026-11-22 01:45 UTC`: a moment to the minute, as listings and notes show it. */
export function utcMinute(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
