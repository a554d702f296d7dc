import { CODE } from '../../errors/codes.js';
import { SourceError } from '../source-error.js';

/** The header as the rows are read against it. */
export interface CsvHeader {
  /** Column names, trimmed, in order: the columns a row's values are keyed by. */
  names: string[];
  /**
   * Fields in the header line, including empty cells after the last name (Excel leaves them
   * at the end of a used range). Those columns are unnamed: a row may have them or not, but
   * a value in one has nowhere to go, so that row is a problem, not a silent loss.
   */
  width: number;
}

/**
 * Header names, trimmed (exports often pad them). A header the mapping cannot address
 * unambiguously stops the run: an empty name between named columns, or the same name twice.
 */
export function checkCsvHeader(fields: readonly string[], where: string, line: number): CsvHeader {
  const trimmed = fields.map((field) => field.trim());
  let named = trimmed.length;
  while (named > 0 && trimmed[named - 1] === '') named--;
  const names = trimmed.slice(0, named);
  const empty = names.flatMap((name, index) => (name === '' ? [columnLabel(index)] : []));
  if (empty.length > 0) {
    throw new SourceError(
      `${where}: the header (line ${line}) has an empty name in ${empty.join(', ')}: ` +
        'give every column a name in the first row, or delete the empty columns',
      { code: CODE.CSV_EMPTY_HEADER },
    );
  }
  const positions = new Map<string, number[]>();
  names.forEach((name, index) => positions.set(name, [...(positions.get(name) ?? []), index]));
  const duplicates = [...positions].filter(([, at]) => at.length > 1);
  if (duplicates.length > 0) {
    const list = duplicates.map(([name, at]) => `"${name}" (${at.map(columnLabel).join(', ')})`).join('; ');
    throw new SourceError(
      `${where}: the header (line ${line}) names the same column more than once: ${list}: ` +
        'rename or delete the duplicates so each column has a unique name',
      { code: CODE.CSV_DUPLICATE_HEADER },
    );
  }
  return { names, width: fields.length };
}

/** `column 3 (C)`, as a spreadsheet shows it. */
export function columnLabel(index: number): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) {
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  }
  return `column ${index + 1} (${letters})`;
}
