import { createHash } from 'node:crypto';

/** Characters kept in the readable parts of an id; anything else becomes `_`. */
const UNSAFE = /[^A-Za-z0-9_-]/g;

/** Longest readable part of each field: enough to recognise an id in `redis-cli`. */
const READABLE = { runId: 40, kind: 16, key: 16 } as const;

/** Characters of the hash: 22 base64url characters are 132 bits. */
const HASH_LENGTH = 22;

const readable = (text: string, length: number): string => text.slice(0, length).replace(UNSAFE, '_');

/**
 * The BullMQ job id of one intent of one run: `<run>.<kind>.<key, readable>.<hash>`.
 *
 * BullMQ refuses a custom id that is an integer or that holds `:`, and a client_id may hold
 * anything (spaces, `:`, unicode, only digits), so the readable parts keep only
 * `[A-Za-z0-9_-]` and are cut short; the hash of the three raw values keeps ids of
 * different intents apart. The same run, kind and key always give the same id, so an
 * intent enqueued twice (a resume after Redis lost its jobs, a retried `addBulk`) is added
 * once while its first job is still in Redis (docs/distributed.md, "Jobs in Redis").
 */
export function jobIdFor(runId: string, kind: string, key: string): string {
  // JSON keeps the three values apart whatever they hold (a separator could be in a key).
  const hash = createHash('sha256')
    .update(JSON.stringify([runId, kind, key]))
    .digest('base64url')
    .slice(0, HASH_LENGTH);
  return [
    readable(runId, READABLE.runId),
    readable(kind, READABLE.kind),
    readable(key, READABLE.key),
    hash,
  ].join('.');
}
