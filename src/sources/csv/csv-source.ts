import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import iconv from 'iconv-lite';
import { CODE } from '../../errors/codes.js';
import type { Logger } from '../../log/logger.js';
import { messageOf } from '../../errors/evsync-error.js';
import type { Source, SourceItem, SourceProgress } from '../source-row.js';
import { SourceError } from '../source-error.js';
import { flattenBatches } from '../flatten-batches.js';
import { describeDetection, detectEncoding, encodingName, type CsvEncoding } from './detect-encoding.js';
import { detectDialect, type CsvDelimiter } from './detect-delimiter.js';
import { createDecodeStream } from './decode-stream.js';
import { parseCsvChunks } from './parse-csv-chunks.js';
import { CsvRecordReader } from './read-csv-records.js';
import { Utf8Marks } from './utf8-marks.js';

export interface CsvSourceOptions {
  /** Absolute (or cwd-relative) path to read. */
  path: string;
  /** How the file is named in origins and messages, e.g. the path as the job file wrote it. @defaultValue `path` */
  displayPath?: string;
  /** Forces the encoding. @defaultValue detected from the BOM and the bytes */
  encoding?: CsvEncoding;
  /** Forces the delimiter. @defaultValue Excel's `sep=` line, else detected in the header line */
  delimiter?: CsvDelimiter;
  logger?: Logger;
  /** The most characters one record may hold (docs/sources.md, "Limits"). @defaultValue MAX_OPEN_RECORD_CHARS */
  maxRecordChars?: number;
  /** Bytes read up front to detect the encoding and the delimiter. @defaultValue 65536 */
  sampleBytes?: number;
}

/** A CSV file as rows of strings keyed by header name, streamed with bounded memory. */
export function createCsvSource(options: CsvSourceOptions): Source {
  const displayPath = options.displayPath ?? options.path;
  const read: SourceProgress = { done: 0, total: 0 };
  const notes: string[] = [];
  return {
    description: `CSV file ${displayPath}`,
    rows: () => {
      notes.length = 0;
      return flattenBatches(readCsvBatches(options, displayPath, read, notes));
    },
    progress: () => (read.total > 0 ? { ...read } : undefined),
    notes: () => [...notes],
  };
}

async function* readCsvBatches(
  options: CsvSourceOptions,
  displayPath: string,
  read: SourceProgress,
  notes: string[],
): AsyncGenerator<SourceItem[]> {
  const sample = await readSample(options.path, displayPath, options.sampleBytes ?? 65_536);
  read.done = 0;
  read.total = (await stat(options.path)).size;
  const wholeFile = sample.length >= read.total;
  const detected = detectEncoding(sample, options.encoding, wholeFile);
  const sampleText = iconv.decode(sample.subarray(detected.bomLength), detected.encoding, {
    stripBOM: false,
  });
  const dialect = detectDialect(sampleText, options.delimiter);
  options.logger?.debug({ file: displayPath, ...detected, delimiter: dialect.delimiter }, 'csv dialect');
  // A guessed encoding is said, in the validate summary and the run's log (docs/sources.md).
  const note = (text: string): void => {
    notes.push(text);
    // Said at info level once for the run, with every file's (`ReadNotices`); here for debugging.
    options.logger?.debug({ file: displayPath }, `csv encoding: ${text}`);
  };
  const guessed = describeDetection(detected, sample.length, wholeFile);
  if (guessed !== undefined) note(guessed);

  const bytes = createReadStream(options.path, { start: detected.bomLength, highWaterMark: 65_536 });
  bytes.on('data', (chunk) => (read.done += chunk.length));
  const marks = new Utf8Marks();
  const text = createDecodeStream({
    encoding: detected.encoding,
    undecided: detected.reason === 'ascii' && !wholeFile,
    skipChars: dialect.sepLineLength,
    startOffset: detected.bomLength,
    marks,
    guessed: detected.reason === 'not-utf-8',
    onDecided: ({ encoding, byteOffset, census }) =>
      note(
        `from byte ${byteOffset.toLocaleString('en')} on, the first byte above 127, read as ${encodingName(encoding)}: ` +
          `the bytes from there have ${census.characters.toLocaleString('en')} UTF-8 characters and ` +
          `${census.invalid.toLocaleString('en')} bytes that are not UTF-8` +
          (encoding === 'windows-1252' && census.characters > 0
            ? '; the rows holding UTF-8 characters are not read, for the file mixes the two encodings'
            : ''),
      ),
  });
  bytes.on('error', (error) => text.destroy(error));
  bytes.pipe(text);
  const reader = new CsvRecordReader({
    source: displayPath,
    firstLine: dialect.sepLineLength > 0 ? 2 : 1,
    marks,
    recordLimit: options.maxRecordChars,
  });
  try {
    for await (const chunk of parseCsvChunks(text, dialect.delimiter, options.maxRecordChars))
      yield reader.read(chunk);
    reader.end();
  } finally {
    bytes.destroy();
  }
}

async function readSample(path: string, displayPath: string, size: number): Promise<Buffer> {
  let handle;
  try {
    handle = await open(path, 'r');
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buffer, 0, size, 0);
    return buffer.subarray(0, bytesRead);
  } catch (error) {
    throw unreadable(error, path, displayPath);
  } finally {
    await handle?.close();
  }
}

/** Opening a directory succeeds on Linux; reading it fails, so both steps end here. */
function unreadable(error: unknown, path: string, displayPath: string): SourceError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') {
    return new SourceError(`CSV file ${displayPath} does not exist (looked for ${path}): check the path`, {
      code: CODE.SOURCE_FILE_NOT_FOUND,
      cause: error,
    });
  }
  const why =
    code === 'EISDIR'
      ? `it is a directory (${path}): give the CSV file's path`
      : `${messageOf(error)}: check the path and its permissions`;
  return new SourceError(`cannot read CSV file ${displayPath}: ${why}`, {
    code: CODE.SOURCE_FILE_UNREADABLE,
    cause: error,
  });
}
