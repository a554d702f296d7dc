import { printable } from '../../report/text-table.js';
/** A report row's cells, as `writeReport` builds them. */
export type ReportCells = Readonly<Record<string, string | number | null>>;

interface Column {
  title: string;
  width: number;
  cell: (row: ReportCells) => string;
  /** Where a long value may break: after a space, a `/` of a path, a `_` of a code. */
  breaks: RegExp;
}

const WORDS = /(?<= )/;
const PATH = /(?<=[/\\ _.-])/;
const CODE_PARTS = /(?<=_)/;

/**
 * The columns a person at a terminal reads, with their widths; the message takes the rest.
 * A long cell wraps onto the lines below, within its column, rather than being cut: a
 * path breaks after a `/`, so the file's name stays whole at its end.
 */
const COLUMNS: readonly Column[] = [
  { title: 'kind', width: 8, cell: (row) => text(row.kind), breaks: WORDS },
  { title: 'key', width: 18, cell: (row) => text(row.key), breaks: PATH },
  { title: 'action', width: 9, cell: (row) => text(row.action), breaks: WORDS },
  {
    title: 'where',
    width: 22,
    cell: (row) =>
      row.source === null ? '' : `${text(row.source)}${row.line === null ? '' : `:${text(row.line)}`}`,
    breaks: PATH,
  },
  { title: 'http', width: 4, cell: (row) => text(row.http_status), breaks: WORDS },
  { title: 'code', width: 16, cell: (row) => text(row.error_code), breaks: CODE_PARTS },
];

/** The message column is never narrower than this, however narrow the terminal. */
const MIN_MESSAGE = 24;

/** The table's first line. */
export function tableHeader(width: number): string {
  return lines([...COLUMNS.map((column) => column.title), 'message'], width);
}

/** One result as lines of the table, each at most `width` characters, long cells wrapped. */
export function tableLine(row: ReportCells, width: number): string {
  return lines([...COLUMNS.map((column) => column.cell(row)), text(row.message)], width);
}

function lines(cells: readonly string[], width: number): string {
  const fixed = COLUMNS.reduce((sum, column) => sum + column.width + 1, 0);
  const widths = [...COLUMNS.map((column) => column.width), Math.max(MIN_MESSAGE, width - fixed)];
  const wrapped = cells.map((cell, i) => wrap(cell, widths[i]!, COLUMNS[i]?.breaks ?? WORDS));
  const height = Math.max(...wrapped.map((cell) => cell.length));
  let out = '';
  for (let at = 0; at < height; at += 1)
    out += `${wrapped.map((cell, i) => (cell[at] ?? '').padEnd(widths[i]!)).join(' ')}`.trimEnd() + '\n';
  return out;
}

/**
 * `value` in lines of at most `width`: pieces split where `breaks` allows are put on a line
 * while they fit; a piece longer than a line is cut at the width.
 */
export function wrap(value: string, width: number, breaks: RegExp): string[] {
  const out: string[] = [];
  let current = '';
  for (const piece of value.split(breaks)) {
    if (current.length + piece.length <= width) {
      current += piece;
      continue;
    }
    if (current.trimEnd() !== '') out.push(current.trimEnd());
    current = piece;
    while (current.length > width) {
      out.push(current.slice(0, width));
      current = current.slice(width);
    }
  }
  if (current.trimEnd() !== '' || out.length === 0) out.push(current.trimEnd());
  return out;
}

function text(value: string | number | null | undefined): string {
  return value === null || value === undefined ? '' : printable(String(value).replace(/\s+/g, ' ').trim());
}
