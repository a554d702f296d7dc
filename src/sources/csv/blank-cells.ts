/**
 * A row whose every cell is empty or whitespace: what Excel writes (`;;;`) for blank rows
 * inside its used range. It is read like a blank line.
 */
export function isBlankRow(fields: readonly string[]): boolean {
  return indexOfValue(fields, 0) === -1;
}

/**
 * The first cell from `from` on that holds more than whitespace, or -1. Called for every
 * row, so the usual answer comes from one character of a cell, without trimming or allocating.
 */
export function indexOfValue(fields: readonly string[], from: number): number {
  for (let index = from; index < fields.length; index++) {
    const field = fields[index]!;
    if (field.length === 0) continue;
    const first = field.charCodeAt(0);
    if (first > 32 && first < 127) return index; // printable ASCII: not whitespace
    if (field.trim() !== '') return index;
  }
  return -1;
}
