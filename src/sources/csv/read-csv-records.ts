import { CODE, type ErrorCode } from '../../errors/codes.js';
import type { SourceItem } from '../source-row.js';
import { SourceError } from '../source-error.js';
import { checkCsvHeader, columnLabel, type CsvHeader } from './csv-header.js';
import { indexOfValue, isBlankRow } from './blank-cells.js';
import { compileRowBuilder, type RowBuilder } from './row-builder.js';
import { MAX_OPEN_RECORD_CHARS, type CsvChunk, type CsvParseError } from './parse-csv-chunks.js';
import type { Utf8Mark, Utf8Marks } from './utf8-marks.js';
import { encodingName } from './detect-encoding.js';

/** What a person picks `encoding:` from, when the guess was wrong. */
const ENCODING_EXAMPLES =
  'windows-1250 for Polish, Czech or Hungarian, windows-1251 for Cyrillic, shift_jis for Japanese; docs/sources.md lists them all';

export interface CsvRecordContext {
  /** Name of the file in origins and messages. */
  source: string;
  /** Physical line of the first record (2 after a `sep=` line). */
  firstLine: number;
  /** The decoder's U+FFFD marks: a row holding a byte that is not UTF-8 is that row's problem. */
  marks?: Utf8Marks;
  /** The most characters a record may hold (`parseCsvChunks`'s limit). @defaultValue MAX_OPEN_RECORD_CHARS */
  recordLimit?: number;
}

/**
 * Parsed rows → source items, one chunk at a time (synchronously: a generator per row would
 * cost more than the parsing). Physical line numbers are counted from the line breaks the
 * rows contain: a quoted field keeps its line breaks, so a record spanning three lines moves
 * the count by three, and a row starts on the line after the previous row ends.
 */
export class CsvRecordReader {
  private line: number;
  private header: CsvHeader | undefined;
  private build: RowBuilder = () => ({});
  private rowNumber = 0;

  constructor(private readonly context: CsvRecordContext) {
    this.line = context.firstLine;
  }

  read(chunk: CsvChunk): SourceItem[] {
    const items: SourceItem[] = [];
    const errorsByRow = groupErrors(chunk.errors);
    for (let index = 0; index < chunk.rows.length; index++) {
      const fields = chunk.rows[index]!;
      const rowLine = this.line;
      this.line += 1 + breaksIn(fields);
      // Only while the decoder has put a U+FFFD in the text is a row searched for one.
      const notUtf8 = this.context.marks?.pending ? this.bytesNotUtf8(fields) : undefined;
      // A blank line, or a row of empty cells (Excel's blank rows): neither is a row read.
      if (isBlankRow(fields) && !errorsByRow.has(index)) continue;
      if (this.header === undefined) {
        if (errorsByRow.get(index)?.some((error) => error.code === 'RecordTooLong'))
          throw headerTooLongError(this.context.source, this.limit);
        if (errorsByRow.has(index)) throw headerQuoteError(this.context.source, rowLine);
        this.header = checkCsvHeader(fields, `CSV file ${this.context.source}`, rowLine);
        this.build = compileRowBuilder(this.header.names);
        continue;
      }
      this.rowNumber += 1;
      items.push(
        notUtf8 === undefined
          ? this.item(fields, rowLine, errorsByRow.get(index), this.header)
          : this.notUtf8Item(notUtf8, rowLine),
      );
    }
    return items;
  }

  private get limit(): number {
    return this.context.recordLimit ?? MAX_OPEN_RECORD_CHARS;
  }

  /** Throws when the file had no header at all. */
  end(): void {
    if (this.header === undefined) {
      throw new SourceError(
        `CSV file ${this.context.source} is empty: it needs a header row naming the columns`,
        {
          code: CODE.CSV_NO_HEADER,
        },
      );
    }
  }

  /** The marks of the bytes in `fields` that were not UTF-8, or undefined when there are none. */
  private bytesNotUtf8(fields: readonly string[]): Utf8Mark[] | undefined {
    let count = 0;
    for (const field of fields) {
      for (let at = field.indexOf('\uFFFD'); at !== -1; at = field.indexOf('\uFFFD', at + 1)) count += 1;
    }
    if (count === 0) return undefined;
    const invalid = this.context.marks!.take(count).filter((mark) => mark.byte !== undefined);
    return invalid.length > 0 ? invalid : undefined;
  }

  private notUtf8Item(marks: Utf8Mark[], rowLine: number): SourceItem {
    const origin = { source: this.context.source, row: this.rowNumber, line: rowLine };
    // A UTF-8 character in a Windows-1252 guess says more than an undefined byte beside it.
    const utf8 = marks.filter((mark) => mark.utf8 !== undefined);
    if (utf8.length > 0) return { ok: false, origin, ...mixedEncodingProblem(utf8) };
    const [first] = marks;
    const where = `${byteHex(first!.byte!)} at byte ${first!.byteOffset.toLocaleString('en')} of the file`;
    const readAs = first!.readAs;
    if (readAs !== undefined) {
      const name = encodingName(readAs);
      return {
        ok: false,
        origin,
        code: CODE.CSV_UNDEFINED_BYTE,
        message:
          `has ${aOrMany(marks.length, 'byte')} that ${name} does not define ${firstAt(marks.length, where)}, ` +
          'so the row was not read: the file is in another encoding; ' +
          `set encoding: in the source to the one it was saved in (${ENCODING_EXAMPLES})`,
      };
    }
    return {
      ok: false,
      origin,
      code: CODE.CSV_NOT_UTF8,
      message:
        `has ${aOrMany(marks.length, 'byte')} that ${marks.length === 1 ? 'is' : 'are'} not UTF-8 ` +
        `${firstAt(marks.length, where)} in a file read as UTF-8, so the row was not read: ` +
        'correct the value and save the file as UTF-8, or set encoding: in the source if the whole file is in another encoding',
    };
  }

  private item(
    fields: string[],
    rowLine: number,
    errors: CsvParseError[] | undefined,
    header: CsvHeader,
  ): SourceItem {
    const origin = { source: this.context.source, row: this.rowNumber, line: rowLine };
    if (errors?.some((error) => error.code === 'RecordTooLong'))
      return { ok: false, origin, code: CODE.CSV_RECORD_TOO_LONG, message: tooLongMessage(this.limit) };
    // An unclosed quote took the rest of the file, or the record was cut at its line: that
    // says more than a malformed one.
    const quoteError =
      errors?.find((error) => error.code === 'MissingQuotes' || error.code === 'RunawayQuote') ??
      errors?.find((error) => error.type === 'Quotes');
    if (quoteError !== undefined)
      return { ok: false, origin, ...describeQuoteError(quoteError, fields, rowLine, this.limit) };
    const named = header.names.length;
    if (fields.length !== named) {
      // Only files whose header ends in unnamed columns (or ragged rows) get here.
      if (fields.length < named || fields.length > header.width) {
        const lines = this.line - rowLine;
        // Thousands of lines taken as one record say more than the count of its fields.
        const spans =
          lines > 1
            ? ` (it runs over lines ${rowLine.toLocaleString('en')}–${(this.line - 1).toLocaleString('en')}: ${lines.toLocaleString('en')} lines read as one record, through line breaks inside a quoted value)`
            : '';
        return {
          ok: false,
          origin,
          code: CODE.CSV_RAGGED_ROW,
          message:
            `has ${fields.length} fields but the header has ${fields.length < named ? named : header.width}${spans}: ` +
            'check for a missing or extra delimiter, a value with the delimiter that needs quotes, or a quote left open',
        };
      }
      const stray = indexOfValue(fields, named);
      if (stray !== -1) {
        return {
          ok: false,
          origin,
          code: CODE.CSV_VALUE_IN_UNNAMED_COLUMN,
          message:
            `has a value in ${columnLabel(stray)}, which has no name in the header: ` +
            'give that column a name in the first row, or move or delete the value',
        };
      }
    }
    // The row spans lines only when a value holds a break (`breaksIn`, counted in `read`).
    return this.line - rowLine > 1
      ? { ok: true, origin, values: this.build(fields), lineBreaks: true }
      : { ok: true, origin, values: this.build(fields) };
  }
}

/** A row of a Windows-1252 guess holding UTF-8 characters (`Zoë` would land as `ZoÃ«`). */
function mixedEncodingProblem(marks: readonly Utf8Mark[]): { code: ErrorCode; message: string } {
  const [first] = marks;
  const hex = [...Buffer.from(first!.utf8!, 'utf8')].map(byteHex).join(' ');
  const where = `"${first!.utf8!}", bytes ${hex} at byte ${first!.byteOffset.toLocaleString('en')} of the file`;
  return {
    code: CODE.CSV_MIXED_ENCODING,
    message:
      `has ${aOrMany(marks.length, 'character')} written in UTF-8 ${firstAt(marks.length, where)} ` +
      'in a file read as Windows-1252 (guessed from its other bytes), ' +
      'so the row was not read: the file mixes UTF-8 and Windows-1252: save it in one encoding, or set encoding: in the source',
  };
}

/** `0xE9`. */
function byteHex(byte: number): string {
  return `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}

/** `a byte`, `3 bytes`. */
function aOrMany(count: number, noun: string): string {
  return count === 1 ? `a ${noun}` : `${count} ${noun}s`;
}

/** Where the first of `count` marks is: `(where)`, or `(the first, where)` among several. */
function firstAt(count: number, where: string): string {
  return `(${count === 1 ? where : `the first, ${where}`})`;
}

function describeQuoteError(
  error: CsvParseError,
  fields: readonly string[],
  rowLine: number,
  limit: number,
): { code: ErrorCode; message: string } {
  if (error.code === 'RunawayQuote') {
    return {
      code: CODE.CSV_UNTERMINATED_QUOTE,
      message:
        `a quoted value opened on line ${rowLine} is not closed within the next ${limit.toLocaleString('en')} characters, ` +
        'so this row was read up to the end of its line and the rows after it as usual: ' +
        'close the quote, or write a quote inside a quoted value as two quotes ("")',
    };
  }
  if (error.code === 'MissingQuotes') {
    const openedOn = rowLine + breaksIn(fields.slice(0, -1));
    return {
      code: CODE.CSV_UNTERMINATED_QUOTE,
      message:
        `a quoted value opened on line ${openedOn} is never closed, so the rest of the file was read as that one value: ` +
        'close the quote, or write a quote inside a quoted value as two quotes ("")',
    };
  }
  return {
    code: CODE.CSV_MALFORMED_QUOTE,
    message:
      'has a quoted value followed by more text before the delimiter: ' +
      'quote the whole value and write a quote inside it as two quotes ("")',
  };
}

function tooLongMessage(limit: number): string {
  return (
    `is longer than ${limit.toLocaleString('en')} characters on one line, so it was not read (the rest of its line was skipped, ` +
    'and the rows after it read as usual): a record that long is not an attendee; check the export, ' +
    'or raise max_record_chars in the source if its values really are that long'
  );
}

function headerTooLongError(source: string, limit: number): SourceError {
  return new SourceError(
    `CSV file ${source}: the header is longer than ${limit.toLocaleString('en')} characters without a line break: this is not a CSV export, or its line breaks are lost`,
    { code: CODE.CSV_RECORD_TOO_LONG },
  );
}

function headerQuoteError(source: string, line: number): SourceError {
  return new SourceError(`CSV file ${source}: the header (line ${line}) has a malformed or unclosed quote`, {
    code: CODE.CSV_MALFORMED_HEADER,
  });
}

function groupErrors(errors: readonly CsvParseError[]): Map<number, CsvParseError[]> {
  const byRow = new Map<number, CsvParseError[]>();
  for (const error of errors) {
    if (error.row === undefined) continue;
    byRow.set(error.row, [...(byRow.get(error.row) ?? []), error]);
  }
  return byRow;
}

/** Line breaks inside the fields (CRLF counts once). */
function breaksIn(fields: readonly string[]): number {
  let breaks = 0;
  for (const field of fields) {
    // Most fields are short and many empty: two searches each were a tenth of the source's time.
    if (field.length === 0 || (field.indexOf('\n') === -1 && field.indexOf('\r') === -1)) continue;
    const matches = field.match(/\r\n|\r|\n/g);
    breaks += matches === null ? 0 : matches.length;
  }
  return breaks;
}
