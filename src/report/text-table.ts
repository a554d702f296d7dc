/**
 * A table of plain text as the CLI prints it (`runs`, `plan`, `prune`): the header, a rule
 * of dashes under each column, then the rows; each cell padded to its column's widest, two
 * spaces between, nothing trailing.
 */
export function textTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}
