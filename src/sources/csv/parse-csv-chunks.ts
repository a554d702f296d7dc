import type { Readable } from 'node:stream';
import Papa from 'papaparse';
import { readMalformedRecord } from './read-malformed-record.js';

export interface CsvChunk {
  rows: string[][];
  /** papaparse's errors, and ours; `row` is the index in `rows`. */
  errors: CsvParseError[];
}

/**
 * papaparse's error, or `RunawayQuote`: a quoted value still open after
 * {@link MAX_OPEN_RECORD_CHARS} of text, cut at the end of the line it opened on.
 */
export type CsvParseError = Omit<Papa.ParseError, 'code'> & {
  code: Papa.ParseError['code'] | 'RunawayQuote';
};

/**
 * How much text one unfinished record may hold before its open quote is taken as never
 * closed. Excel writes at most 32,767 characters to a cell, so no real value comes near;
 * without a bound, one stray quote near the top of a big file kept the rest of the file in
 * memory and parsed it again with every new piece (minutes and a gigabyte for 100 MB).
 */
export const MAX_OPEN_RECORD_CHARS = 1 << 20;

/** papaparse's own guess (`\n`, `\r\n` or `\r`), which it keeps private in its handle. */
type LineBreak = '\n' | '\r' | '\r\n';
interface LineEndingGuesser {
  guessLineEndings(input: string, quoteChar: string): LineBreak;
}
const { ParserHandle } = Papa as unknown as { ParserHandle: new (config: object) => LineEndingGuesser };

/**
 * papaparse over a text stream, as an async iterable of parsed chunks. The stream is read
 * one piece at a time when the consumer asks for the next chunk: memory holds one piece and
 * the unfinished record after it (at most {@link MAX_OPEN_RECORD_CHARS}), whatever the file size.
 *
 * papaparse's low-level parser is driven here rather than `Papa.parse(stream)`, so the raw
 * text of a chunk is at hand when a row has text after a closing quote: papaparse's recovery
 * from that swallows the rows after it (see `readMalformedRecord`), so such a record is read
 * again from the text and parsing goes on after it.
 */
export async function* parseCsvChunks(text: Readable, delimiter: string): AsyncGenerator<CsvChunk> {
  let newline: LineBreak | undefined;
  let partial = '';
  try {
    for await (const piece of text as AsyncIterable<string | Buffer>) {
      const input = partial + (typeof piece === 'string' ? piece : piece.toString('utf8'));
      // Guessed once, as papaparse does, but not before a line break shows up.
      if (newline === undefined) {
        if (input.indexOf('\n') === -1 && input.indexOf('\r') === -1) {
          partial = input;
          continue;
        }
        newline = new ParserHandle({}).guessLineEndings(input, '"');
      }
      const parsed = parseText(input, delimiter, newline, false);
      partial = parsed.rest;
      if (hasContent(parsed.chunk)) yield parsed.chunk;
      while (partial.length > MAX_OPEN_RECORD_CHARS) {
        const lineEnd = partial.indexOf(newline);
        if (lineEnd === -1) break;
        // The record opened on this line: its row ends with the line, and reading goes on
        // with the next line as a record of its own.
        const record = readMalformedRecord(partial.slice(0, lineEnd), 0, delimiter, newline, true)!;
        yield {
          rows: [record.fields],
          errors: [{ type: 'Quotes', code: 'RunawayQuote', message: 'Quoted field not closed', row: 0 }],
        };
        const after = parseText(partial.slice(lineEnd + newline.length), delimiter, newline, false);
        partial = after.rest;
        if (hasContent(after.chunk)) yield after.chunk;
      }
    }
    if (partial !== '') {
      newline ??= '\n';
      // The last line may end otherwise than the others (a CRLF file whose last line a tool
      // ended with LF): at the end of the file any line break ends the record, where it would
      // otherwise be text after a closing quote, or part of the last value.
      const { chunk } = parseText(partial.replace(FINAL_LINE_BREAK, ''), delimiter, newline, true);
      if (hasContent(chunk)) yield chunk;
    }
  } finally {
    text.destroy();
  }
}

/** One line break of any kind at the very end of the text. */
const FINAL_LINE_BREAK = /(?:\r\n|\n|\r)$/;

function hasContent(chunk: CsvChunk): boolean {
  return chunk.rows.length > 0 || chunk.errors.length > 0;
}

/** Parses the complete records of `input` (all of it when `final`); `rest` is what is left. */
function parseText(
  input: string,
  delimiter: string,
  newline: LineBreak,
  final: boolean,
): { chunk: CsvChunk; rest: string } {
  const chunk: CsvChunk = { rows: [], errors: [] };
  for (let from = 0; ;) {
    const text = from === 0 ? input : input.slice(from);
    const result = new Papa.Parser({ delimiter, newline }).parse(text, 0, !final) as Papa.ParseResult<
      string[]
    >;
    const malformed = result.errors.find((error) => error.code === 'InvalidQuotes');
    const good = malformed?.row ?? result.data.length;
    const offset = chunk.rows.length;
    for (let index = 0; index < good; index++) chunk.rows.push(result.data[index]!);
    for (const error of result.errors) {
      if (error.row !== undefined && error.row < good)
        chunk.errors.push({ ...error, row: error.row + offset });
    }
    if (malformed === undefined) return { chunk, rest: text.slice(result.meta.cursor) };

    // Where the bad record starts: after the rows before it, parsed again (rare).
    const start =
      good === 0
        ? 0
        : (
            new Papa.Parser({ delimiter, newline, preview: good }).parse(text, 0, false) as Papa.ParseResult<
              string[]
            >
          ).meta.cursor;
    const record = readMalformedRecord(text, start, delimiter, newline, final);
    if (record === undefined) return { chunk, rest: text.slice(start) };
    chunk.rows.push(record.fields);
    chunk.errors.push({
      type: 'Quotes',
      code: record.unterminated ? 'MissingQuotes' : 'InvalidQuotes',
      message: record.unterminated
        ? 'Quoted field unterminated'
        : 'Trailing quote on quoted field is malformed',
      row: chunk.rows.length - 1,
      index: from + start,
    });
    from += record.end;
    if (from >= input.length) return { chunk, rest: '' };
  }
}
