import type { Readable } from 'node:stream';
import Papa from 'papaparse';

export interface CsvChunk {
  rows: string[][];
  /** papaparse errors; `row` is the index in `rows`. */
  errors: Papa.ParseError[];
}

/**
 * papaparse over a text stream, as an async iterable of parsed chunks. The parser pauses
 * after each chunk until the consumer asks for the next one, and pausing it pauses the
 * file stream: memory holds one chunk, whatever the file size.
 */
export async function* parseCsvChunks(text: Readable, delimiter: string): AsyncGenerator<CsvChunk> {
  const ready: CsvChunk[] = [];
  let parser: Papa.Parser | undefined;
  let paused = false;
  let finished = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const signal = (): void => {
    wake?.();
    wake = undefined;
  };

  Papa.parse<string[]>(text as unknown as Papa.LocalFile, {
    delimiter,
    header: false,
    dynamicTyping: false,
    skipEmptyLines: false,
    chunk(results, handle) {
      parser = handle;
      if (results.data.length > 0 || results.errors.length > 0) {
        ready.push({ rows: results.data, errors: results.errors });
        handle.pause();
        // papaparse's pause stops the parser only: its stream reader keeps queueing 'data'
        // events, so the text stream itself must be paused too.
        text.pause();
        paused = true;
      }
      signal();
    },
    complete() {
      finished = true;
      signal();
    },
    error(error: Error) {
      failure = error;
      finished = true;
      signal();
    },
  });
  text.once('error', (error: Error) => {
    failure ??= error;
    finished = true;
    signal();
  });

  try {
    for (;;) {
      const next = ready.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (failure !== undefined) throw failure;
      if (finished) return;
      const waiting = new Promise<void>((resolve) => (wake = resolve));
      if (paused) {
        paused = false;
        // Stream first: its data events come on a later tick, while parser.resume() may
        // parse a queued chunk at once and pause both again.
        text.resume();
        parser?.resume();
      }
      await waiting;
    }
  } finally {
    if (!finished) parser?.abort();
    text.destroy();
  }
}
