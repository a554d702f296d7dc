/** Messages between the embedded ledger's client and its database thread (`pglite-worker.ts`). */
export type ThreadRequest = { id: number } & (
  | { type: 'open' }
  | { type: 'query'; sql: string; params: unknown[] }
  | { type: 'exec'; sql: string }
  | { type: 'close' }
);

export type ThreadReply = { id: number } & (
  { ok: true; result: unknown } | { ok: false; error: SerializedError }
);

/** A database error's message and its PostgreSQL fields (`code` is the SQLSTATE callers test). */
export interface SerializedError {
  name: string;
  message: string;
  fields: Record<string, string | number>;
}

export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(error)) {
    if (typeof value === 'string' || typeof value === 'number') fields[key] = value;
  }
  return { name: error.name, message: error.message, fields };
}

/** The error as the caller would have seen it from PGlite itself: same message, same fields. */
export function deserializeError(serialized: SerializedError): Error {
  const error = new Error(serialized.message);
  error.name = serialized.name;
  return Object.assign(error, serialized.fields);
}
