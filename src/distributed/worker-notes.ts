import type { Redis } from 'ioredis';

/**
 * What a worker notes in Redis of the conferences it served, refused, and whose platform
 * refused its signature (`evsync status`, and a run whose lane no worker serves says why).
 */
export interface WorkerConferences {
  worker: string;
  serves: string[];
  /** Conferences it served until their key left its environment (it left their lanes). */
  left?: string[];
  refuses: Record<string, string>;
  /** Conferences whose platform refused this worker's signature, and why. */
  rejected?: Record<string, string>;
}

export const workerNoteKey = (prefix: string, worker: string): string => `${prefix}:evsync-worker:${worker}`;

/** A note outlives its worker by at most this long: refreshed while the worker lives. */
export const WORKER_NOTE_TTL_S = 60;

/** The notes of the workers alive, by worker name (`host:pid`). */
export async function workerConferences(
  redis: Redis,
  prefix: string,
): Promise<Map<string, WorkerConferences>> {
  const notes = new Map<string, WorkerConferences>();
  const pattern = workerNoteKey(prefix, '*');
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    cursor = next;
    for (const key of keys) {
      const text = await redis.get(key);
      if (text !== null) {
        const note = JSON.parse(text) as WorkerConferences;
        notes.set(note.worker, note);
      }
    }
  } while (cursor !== '0');
  return notes;
}
