/**
 * The embedded ledger's database thread: PGlite's WASM PostgreSQL runs here so that its
 * work (planning, index updates, WAL) does not hold up the engine's event loop, where
 * every millisecond delays the answers of requests in flight. The main thread talks to it
 * through `pglite-thread-client.ts`; one request at a time reaches PGlite, in order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import type { ThreadReply, ThreadRequest } from './pglite-thread-protocol.js';
import { serializeError } from './pglite-thread-protocol.js';

const port = parentPort;
if (port === null) throw new Error('pglite-worker.ts runs as a worker thread of the embedded ledger');
const { clusterDir } = workerData as { clusterDir: string };

let db: PGlite | undefined;

async function handle(request: ThreadRequest): Promise<unknown> {
  switch (request.type) {
    case 'open':
      db = await PGlite.create(clusterDir);
      // A checkpoint removes the WAL segments it no longer needs instead of keeping them
      // for reuse: PostgreSQL keeps `min_wal_size` (80 MB) of them, which PGlite cannot
      // lower (no `ALTER SYSTEM` is read at start), and half the folder of a small ledger
      // was spare WAL (docs/ledger.md, "What a run stores").
      await db.exec('SET wal_recycle = off');
      return undefined;
    case 'query':
      return (await opened().query(request.sql, request.params)).rows;
    case 'exec':
      await opened().exec(request.sql);
      return undefined;
    case 'close':
      await db?.close();
      db = undefined;
      return undefined;
  }
}

function opened(): PGlite {
  if (db === undefined) throw new Error('the embedded ledger is not open');
  return db;
}

port.on('message', (request: ThreadRequest) => {
  handle(request).then(
    (result) => port.postMessage({ id: request.id, ok: true, result } satisfies ThreadReply),
    (error: unknown) =>
      port.postMessage({ id: request.id, ok: false, error: serializeError(error) } satisfies ThreadReply),
  );
});
