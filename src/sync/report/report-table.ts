/** A report row's cells, as `writeReport` builds them. */
export type ReportCells = Readonly<Record<string, string | number | null>>;

/** The columns a person at a terminal reads, with their widths (the message takes the rest). */
const TABLE_COLUMNS = [
  { title: 'kind', width: 8, cell: (row: ReportCells) => text(row.kind) },
  { title: 'key', width: 22, cell: (row: ReportCells) => text(row.key) },
  { title: 'action', width: 9, cell: (row: ReportCells) => text(row.action) },
  {
    title: 'where',
    width: 24,
    cell: (row: ReportCells) =>
      row.source === null ? '' : `${text(row.source)}${row.line === null ? '' : `:${text(row.line)}`}`,
  },
  { title: 'status', width: 6, cell: (row: ReportCells) => text(row.http_status) },
] as const;

/** The table's first line. */
export function tableHeader(width: number): string {
  return line(
    TABLE_COLUMNS.map((column) => column.title),
    'message',
    width,
  );
}

/** One result as a line of the table, cut to `width` characters; the message last. */
export function tableLine(row: ReportCells, width: number): string {
  const message = [text(row.error_code), text(row.message)].filter((part) => part !== '').join(' ');
  return line(
    TABLE_COLUMNS.map((column) => column.cell(row)),
    message,
    width,
  );
}

function line(cells: readonly string[], last: string, width: number): string {
  const fixed = cells.map((cell, i) => fit(cell, TABLE_COLUMNS[i]!.width)).join(' ');
  const room = Math.max(20, width - fixed.length - 1);
  return `${fixed} ${last.length > room ? `${last.slice(0, room - 1)}…` : last}`.trimEnd() + '\n';
}

/** A cell padded to its width, or cut with an ellipsis; the end of a path is what tells it apart. */
function fit(value: string, width: number): string {
  if (value.length <= width) return value.padEnd(width);
  return `…${value.slice(value.length - width + 1)}`;
}

function text(value: string | number | null | undefined): string {
  return value === null || value === undefined ? '' : String(value).replace(/\s+/g, ' ');
}
