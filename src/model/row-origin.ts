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
