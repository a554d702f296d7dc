/** One record read strictly by RFC 4180, from the raw text. */
export interface MalformedRecord {
  /** The fields as written (a bad value keeps the text after its closing quote). */
  fields: string[];
  /** Where the next record starts in the text. */
  end: number;
  /** A quoted value in the record runs to the end of the text. */
  unterminated: boolean;
}

/**
 * Reads the record starting at `start` in which papaparse found text after a closing quote
 * (`"a@x.com"x,…`). papaparse's recovery treats that quote as data and reads on to the next
 * quote it likes, which can be rows later: those rows vanish into one value, or the rest of
 * the file does when no such quote comes. Here the first quote that is not doubled closes
 * the value, as RFC 4180 says; the text after it, up to the next delimiter, stays in the
 * (bad) value, and the record ends at the next line break outside quotes. Only rows papaparse
 * reported get here, so the cost does not matter. Returns `undefined` when the record may go
 * on past the text (more is coming).
 */
export function readMalformedRecord(
  text: string,
  start: number,
  delimiter: string,
  newline: string,
  final: boolean,
): MalformedRecord | undefined {
  const fields: string[] = [];
  let cursor = start;
  for (;;) {
    let value = '';
    let from = cursor;
    if (text[cursor] === '"') {
      let close = text.indexOf('"', cursor + 1);
      while (close !== -1 && text[close + 1] === '"') close = text.indexOf('"', close + 2);
      // A quote ending the text may be the first of a doubled one: wait for what follows.
      if (!final && (close === -1 || close === text.length - 1)) return undefined;
      if (close === -1) {
        fields.push(text.slice(cursor + 1).replaceAll('""', '"'));
        return { fields, end: text.length, unterminated: true };
      }
      value = text.slice(cursor + 1, close).replaceAll('""', '"');
      from = close + 1;
    }
    const end = nextBoundary(text, from, delimiter, newline);
    fields.push(value + text.slice(from, end));
    if (end === text.length) return final ? { fields, end, unterminated: false } : undefined;
    if (text.startsWith(delimiter, end)) cursor = end + delimiter.length;
    else return { fields, end: end + newline.length, unterminated: false };
  }
}

function nextBoundary(text: string, from: number, delimiter: string, newline: string): number {
  const delimiterAt = text.indexOf(delimiter, from);
  const newlineAt = text.indexOf(newline, from);
  if (delimiterAt === -1) return newlineAt === -1 ? text.length : newlineAt;
  return newlineAt === -1 ? delimiterAt : Math.min(delimiterAt, newlineAt);
}
