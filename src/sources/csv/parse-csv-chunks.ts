import type { Readable } from 'node:stream';
import Papa from 'papaparse';
import { readMalformedRecord } from './read-malformed-record.js';

export interface CsvChunk {
  rows: string[][];
  /** papaparse's errors, and ours; `row` is the index in `rows`. */
  errors: CsvParseError[];
}

/**
 * papaparse's error, or ours: `RunawayQuote`, a quoted value still open after the record
 * limit, cut at the end of the line it opened on; `RecordTooLong`, a record past the limit on
 * one line, skipped up to its line's end.
 */
export type CsvParseError = Omit<Papa.ParseError, 'code'> & {
  code: Papa.ParseError['code'] | 'RunawayQuote' | 'RecordTooLong';
};

/**
 * How much text one record may hold (docs/sources.md, "Limits"), unless the source says
 * otherwise (`max_record_chars`). Excel writes at most 32,767 characters to a cell, so no
 * real value comes near; without a bound, one stray quote near the top of a big file kept
 * the rest of the file in memory and parsed it again with every new piece (minutes and a
 * gigabyte for 100 MB), and so did a file without a line break.
 */
export const MAX_OPEN_RECORD_CHARS = 1 << 20;

/**
 * papaparse over a text stream, as an async iterable of parsed chunks. The stream is read
 * one piece at a time when the consumer asks for the next chunk: memory holds one piece and
 * the unfinished record after it (at most `limit` characters), whatever the file size.
 *
 * Every line break (CRLF, LF, or CR alone) is read as one (`LineBreaks`).
 *
 * papaparse's low-level parser is driven here rather than `Papa.parse(stream)`, so the raw
 * text of a chunk is at hand when a row has text after a closing quote: papaparse's recovery
 * from that swallows the rows after it (see `readMalformedRecord`), so such a record is read
 * again from the text and parsing goes on after it.
 */
export async function* parseCsvChunks(
  text: Readable,
  delimiter: string,
  limit = MAX_OPEN_RECORD_CHARS,
): AsyncGenerator<CsvChunk> {
  const lines = new LineBreaks();
  let partial = '';
  /** Inside a record past the limit: its text is dropped up to the end of its line. */
  let skipping = false;
  try {
    for await (const piece of text as AsyncIterable<string | Buffer>) {
      let input = lines.normalise(typeof piece === 'string' ? piece : piece.toString('utf8'), partial);
      const newline = lines.newline ?? '\n';
      if (skipping) {
        const lineEnd = input.indexOf(newline);
        if (lineEnd === -1) continue;
        skipping = false;
        input = input.slice(lineEnd + newline.length);
      }
      input = partial + input;
      if (lines.newline === undefined && input.length <= limit) {
        // No line break yet: nothing to parse.
        partial = input;
        continue;
      }
      const parsed = parseText(input, delimiter, newline, false);
      partial = parsed.rest;
      if (hasContent(parsed.chunk)) yield parsed.chunk;
      while (partial.length > limit) {
        const lineEnd = partial.indexOf(newline);
        if (lineEnd === -1) {
          // One line past the limit: a row of its own that is not read, whatever it holds.
          yield tooLong(partial);
          partial = '';
          skipping = true;
          break;
        }
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
    partial += lines.end();
    if (partial !== '' && !skipping) {
      // At the end of the file a line break ends the record, where it would otherwise be
      // text after a closing quote, or part of the last value.
      const { chunk } = parseText(
        partial.replace(FINAL_LINE_BREAK, ''),
        delimiter,
        lines.newline ?? '\n',
        true,
      );
      if (hasContent(chunk)) yield chunk;
    }
  } finally {
    text.destroy();
  }
}

/** papaparse's own guess (`\n`, `\r\n` or `\r`), which it keeps private in its handle. */
type LineBreak = '\n' | '\r' | '\r\n';
interface LineEndingGuesser {
  guessLineEndings(input: string, quoteChar: string): LineBreak;
}
const { ParserHandle } = Papa as unknown as { ParserHandle: new (config: object) => LineEndingGuesser };

/**
 * The file's line break, guessed once as papaparse guesses it, and every other kind turned
 * into it, piece by piece: a file whose halves were written with different line ends (two
 * exports put end to end) is read as the lines it has, where one guess read the other half
 * as a single line. A file of one kind is left as it is, quoted values included; in a mixed
 * one a break inside a quoted value stays a break, of the file's kind. A CR at the end of a
 * piece waits for the next, which may start with its LF.
 */
class LineBreaks {
  newline: LineBreak | undefined;
  private pendingCr = false;

  /** `piece` with the file's line breaks; `before`, the unparsed text before it, helps the guess. */
  normalise(piece: string, before: string): string {
    let text = this.pendingCr ? `\r${piece}` : piece;
    this.pendingCr = text.endsWith('\r');
    if (this.pendingCr) text = text.slice(0, -1);
    if (this.newline === undefined) {
      if (text.indexOf('\n') === -1 && text.indexOf('\r') === -1) return text;
      this.newline = new ParserHandle({}).guessLineEndings(before + text, '"');
    }
    return FOREIGN_BREAK[this.newline].test(text) ? text.replace(ANY_BREAK, this.newline) : text;
  }

  /** What is left at the end of the file: a last CR. */
  end(): string {
    return this.pendingCr ? (this.newline ?? '\r') : '';
  }
}

const ANY_BREAK = /\r\n|\r|\n/g;
/** A break of another kind than the file's. */
const FOREIGN_BREAK: Readonly<Record<LineBreak, RegExp>> = {
  '\r\n': /\r(?!\n)|(?<!\r)\n/,
  '\n': /\r/,
  '\r': /\n/,
};

/** The row of a record past the limit: its first fields as far as they go, and the error. */
function tooLong(text: string): CsvChunk {
  return {
    rows: [[text.slice(0, 200)]],
    errors: [{ type: 'FieldMismatch', code: 'RecordTooLong', message: 'Record too long', row: 0 }],
  };
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
