/**
 * A driver value as something JSON can carry and a mapping can read: dates as ISO 8601,
 * big integers as strings, bytes as base64, null kept as null. Objects and arrays (json
 * columns, PostgreSQL arrays) keep their shape with their leaves converted.
 */
export function toPlainValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (Array.isArray(value)) return value.map(toPlainValue);
  if (typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) copy[key] = toPlainValue(child);
    return copy;
  }
  return value;
}

/** `2024-05-01 09:30:00` (a timestamp without zone) → `2024-05-01T09:30:00`: ISO, no offset invented. */
export function isoLocalDateTime(text: string): string {
  return text.replace(' ', 'T');
}

export function plainRecord(row: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) copy[key] = toPlainValue(value);
  return copy;
}
