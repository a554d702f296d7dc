/**
 * A CSV cell that a spreadsheet will not run as a formula: text starting with `= + - @`
 * (or a tab or carriage return, which some spreadsheets strip first) gets a leading `'`
 * (OWASP "CSV injection"). Then quoted per RFC 4180 when needed.
 */
export function csvCell(value: string | number | boolean | Date | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = value instanceof Date ? value.toISOString() : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: ReadonlyArray<string | number | boolean | Date | null | undefined>): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
