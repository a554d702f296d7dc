/**
 * A driver value as something JSON can carry and a mapping can read: dates as ISO 8601,
 * big integers as strings, null kept as null, bytes as their text (see {@link bytesValue}).
 * Objects and arrays (json columns, PostgreSQL arrays) keep their shape with their leaves
 * converted. `base64` is told the `column` each time its bytes had to be sent as base64.
 */
export function toPlainValue(value: unknown, base64?: Base64Columns, column = ''): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Buffer.isBuffer(value)) return bytesValue(value, base64, column);
  if (Array.isArray(value)) return value.map((item) => toPlainValue(item, base64, column));
  if (typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) copy[key] = toPlainValue(child, base64, column);
    return copy;
  }
  return value;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** C0 controls but tab, line feed and carriage return, and DEL: no text holds them. */
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const NOT_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/**
 * Bytes of a binary-typed column (MySQL's VARBINARY, BINARY, BLOB; PostgreSQL's bytea).
 * Legacy schemas keep text in them (`Fayé` in a VARBINARY name column): bytes that are
 * UTF-8 text read as that text. Other bytes (an image, a packed UUID, text in another
 * encoding) cannot be read as text without a guess: they stay base64, and `base64` is
 * told so that the source can say which column held them.
 */
function bytesValue(bytes: Buffer, base64: Base64Columns | undefined, column: string): string {
  const text = bytesText(bytes);
  if (text !== undefined) return text;
  base64?.add(column);
  return bytes.toString('base64');
}

/** The bytes as text when they are UTF-8 without control characters (tab and line breaks aside). */
export function bytesText(bytes: Uint8Array): string | undefined {
  try {
    const text = UTF8.decode(bytes);
    return NOT_TEXT.test(text) ? undefined : text;
  } catch {
    return undefined;
  }
}

/** `2024-05-01 09:30:00` (a timestamp without zone) → `2024-05-01T09:30:00`: ISO, no offset invented. */
export function isoLocalDateTime(text: string): string {
  return text.replace(' ', 'T');
}

/**
 * The row's values made plain. `base64` (one per source read) remembers the columns whose
 * bytes had to be sent as base64, for the source's notes.
 */
export function plainRecord(row: Record<string, unknown>, base64?: Base64Columns): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) copy[key] = toPlainValue(value, base64, key);
  return copy;
}

/** The columns of one read whose bytes were not UTF-8 text, with how many values. */
export class Base64Columns {
  private readonly counts = new Map<string, number>();

  /** @param convert how the database reads bytes in another encoding as text, e.g. `CONVERT(col USING latin1)`. */
  constructor(private readonly convert: string) {}

  add(column: string): void {
    this.counts.set(column, (this.counts.get(column) ?? 0) + 1);
  }

  /** One note for all the columns, or none: the values were sent as base64, and how to read them as text. */
  notes(): string[] {
    if (this.counts.size === 0) return [];
    const columns = [...this.counts]
      .map(
        ([column, count]) =>
          `"${column}" (${count.toLocaleString('en')} ${count === 1 ? 'value' : 'values'})`,
      )
      .join(', ');
    return [
      `bytes that are not UTF-8 text were read as base64 in ${columns}: if it is text in another ` +
        `encoding, convert it in the query (${this.convert}); if it is not text (an image, a packed ` +
        'id), leave it out of the query',
    ];
  }
}
