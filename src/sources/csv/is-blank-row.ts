/**
 * A row whose every cell is empty or whitespace: what Excel writes (`;;;`) for blank rows
 * inside its used range. It is read like a blank line. Called for every row, so the usual
 * answer comes from one character of the first cell, without trimming or allocating.
 */
export function isBlankRow(fields: readonly string[]): boolean {
  for (const field of fields) {
    if (field.length === 0) continue;
    const first = field.charCodeAt(0);
    if (first > 32 && first < 127) return false; // printable ASCII: not whitespace
    if (field.trim() !== '') return false;
  }
  return true;
}
