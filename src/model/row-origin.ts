/** Where a row came from, carried by its intents into the plan, the ledger and the report. */
export interface RowOrigin {
  /** File path, URL, or a short name of the query (never a connection URL). */
  source: string;
  /** 1-based number of the data row (the header is not a row). */
  row: number;
  /** 1-based physical line where the row starts, for files. */
  line?: number;
}

/** `row 17 (line 18)` / `row 3 of query "attendees"`: the prefix of every per-row message. */
export function describeOrigin(origin: RowOrigin): string {
  return origin.line === undefined ? `row ${origin.row}` : `row ${origin.row} (line ${origin.line})`;
}

/**
 * The key under which a row that never became an intent (the source or the mapping refused
 * it) is recorded: it has no key of its own, so it is named by its place.
 */
export function rowPlaceKey(origin: RowOrigin): string {
  return `@${origin.source}:${origin.row}`;
}

/** Whether a recorded key names a row by its place (`rowPlaceKey`) rather than an intent. */
export function isRowPlaceKey(key: string): boolean {
  return key.startsWith('@');
}

/**
 * The key of a row that repeats `key` (a duplicate row, a second failed row of one
 * client_id, a failed row whose client_id a valid row has): `<key>#row<n>`, so that each
 * row keeps a result of its own (one per run, kind and key) and is still found by its key.
 */
export function repeatedRowKey(key: string, row: number): string {
  return `${key}#row${row}`;
}

/**
 * The first of `<key>#row<n>`, `<key>#row<n>.2`, `.3`… that `taken` does not hold: a key of
 * its own for a repeat whose row number another source's repeat of the key has too.
 */
export function freeRepeatedRowKey(key: string, row: number, taken: (key: string) => boolean): string {
  const repeated = repeatedRowKey(key, row);
  let free = repeated;
  for (let n = 2; taken(free); n++) free = `${repeated}.${n}`;
  return free;
}

/**
 * Whether a failed row's key can find it again in its source (a retry reads rows again by
 * key): not one named by its place, nor a repeat of another row's key, which the source
 * may hold several times.
 */
export function isLookupKey(key: string): boolean {
  return !isRowPlaceKey(key) && !isRepeatedRowKey(key);
}

/** Whether a recorded key is a repeat's (`repeatedRowKey`, `freeRepeatedRowKey`): `<key>#row<n>`, `.2` on. */
export function isRepeatedRowKey(key: string): boolean {
  return REPEATED_ROW_KEY.test(key);
}

const REPEATED_ROW_KEY = /#row\d+(?:\.\d+)?$/;
