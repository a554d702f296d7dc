import { SourceError } from '../source-error.js';

/**
 * Header names, trimmed (exports often pad them). A header the mapping cannot address
 * unambiguously stops the run: an empty name, or the same name twice.
 */
export function checkCsvHeader(fields: readonly string[], where: string, line: number): string[] {
  const names = fields.map((field) => field.trim());
  const empty = names.flatMap((name, index) => (name === '' ? [columnLabel(index)] : []));
  if (empty.length > 0) {
    throw new SourceError(
      `${where}: the header (line ${line}) has no name for ${plural(empty.length, 'column')} ${empty.join(', ')}: ` +
        'give every column a name in the first row, or delete the empty columns',
      { code: 'CSV_EMPTY_HEADER' },
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
      { code: 'CSV_DUPLICATE_HEADER' },
    );
  }
  return names;
}

/** `column 3 (C)`, as a spreadsheet shows it. */
export function columnLabel(index: number): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) {
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  }
  return `column ${index + 1} (${letters})`;
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}
