/**
 * A table of plain text as the CLI prints it (`runs`, `plan`, `prune`): the header, a rule
 * of dashes under each column, then the rows; each cell padded to its column's widest, two
 * spaces between, nothing trailing.
 */
export function textTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  const cells = rows.map((row) => row.map(printable));
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)];
}

/**
 * `text` safe to print on a terminal: a control character from a source row (an escape
 * sequence in a name) is shown as its picture (`␛`, `␇`), never sent to the terminal,
 * where it could recolour or hide what follows. Tabs and line breaks are the callers' to
 * lay out.
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is looked for
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x20 ? String.fromCharCode(0x2400 + code) : code === 0x7f ? '\u2421' : '\ufffd';
  });
}
