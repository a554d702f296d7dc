import { CODE } from '../errors/codes.js';
import { messageOf } from '../errors/evsync-error.js';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { acquireFolderLock } from './folder-lock.js';
import { LedgerError } from './ledger-error.js';
import { deserializeError, type ThreadReply, type ThreadRequest } from './pglite-thread-protocol.js';
import type { SqlClient, SqlExecutor } from './sql-client.js';

export interface EmbeddedClientHandle {
  client: SqlClient;
  /** The PGlite cluster folder. */
  clusterDir: string;
}

/** How often a lock waited for is tried again (only this process can hold it). */
const LOCK_POLL_MS = 100;

/** A request before it gets its id (`Omit` spread over the union keeps each variant's fields). */
type Request<T = ThreadRequest> = T extends unknown ? Omit<T, 'id'> : never;

/**
 * Opens (creating on first use) the PGlite cluster in `<dataDir>/ledger`, guarded by a
 * pid lock `<dataDir>/ledger.lock`. PGlite runs in a worker thread (see pglite-worker.ts)
 * and has a single connection: statements are serialised here, and a transaction holds
 * that connection from BEGIN to COMMIT so no other statement lands inside it. The
 * migration lock is that same single connection.
 */
export async function openPgliteClient(dataDir: string): Promise<EmbeddedClientHandle> {
  const clusterDir = join(dataDir, 'ledger');
  const release = acquireFolderLock(join(dataDir, 'ledger.lock'), `The embedded ledger in ${dataDir}`);
  const thread = new DatabaseThread(clusterDir);
  try {
    await thread.send({ type: 'open' });
  } catch (error) {
    await thread.stop();
    release();
    throw new LedgerError(
      `Could not open the embedded ledger in ${clusterDir}: ${messageOf(error)}. ` +
        'Check that the folder is writable, or set EVSYNC_DATA_DIR to another folder.',
      { code: CODE.EVSYNC_LEDGER_UNAVAILABLE, retryable: true, cause: error },
    );
  }
  let turn: Promise<unknown> = Promise.resolve();
  const direct = executorOf(thread);
  const checkpoints = new WalCheckpoints(direct);
  /** Runs `work` when every earlier statement or transaction has finished. */
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const result = turn.then(work);
    turn = result.catch(() => undefined).then(() => checkpoints.afterStatement());
    return result;
  };
  let closed = false;
  const held = new Set<string>();
  const client: SqlClient = {
    query: (sql, params) => exclusive(() => direct.query(sql, params)),
    execScript: (sql) => exclusive(() => direct.execScript(sql)),
    transaction: (work) =>
      exclusive(async () => {
        await direct.execScript('BEGIN');
        try {
          const result = await work(direct);
          await direct.execScript('COMMIT');
          return result;
        } catch (error) {
          await direct.execScript('ROLLBACK').catch(() => undefined);
          throw error;
        }
      }),
    withMigrationLock: (work) => work(client),
    // The folder lock keeps other processes out of the store: locks are this process's.
    tryLock: async (name, lockOptions = {}) => {
      while (held.has(name)) {
        if (lockOptions.wait !== true || lockOptions.signal?.aborted) return undefined;
        await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
      }
      held.add(name);
      return () => {
        held.delete(name);
        return Promise.resolve();
      };
    },
    // The folder lock keeps every other process out: only this one's holders exist.
    isLocked: (name) => Promise.resolve(held.has(name)),
    close: async () => {
      if (closed) return;
      closed = true;
      try {
        await exclusive(() => thread.send({ type: 'close' }));
      } finally {
        await thread.stop();
        release();
      }
    },
  };
  return { client, clusterDir };
}

/**
 * PGlite runs PostgreSQL in single-user mode, where nothing asks for a checkpoint when the
 * WAL grows (no checkpointer; `max_wal_size` is never acted on): a 200,000-user import left
 * about 600 MB of WAL beside 250 MB of tables. Between statements, every
 * {@link WAL_CHECK_EVERY} statements, the ledger reads how far the WAL has grown since its
 * last checkpoint and checkpoints past {@link WAL_CHECKPOINT_BYTES}: old segments are then
 * recycled or removed, and the folder stays about two checkpoints' worth of WAL above its
 * tables (docs/ledger.md, "What a run stores").
 */
class WalCheckpoints {
  private statements = 0;
  private last: number | undefined;

  constructor(private readonly db: SqlExecutor) {}

  async afterStatement(): Promise<void> {
    if (++this.statements % WAL_CHECK_EVERY !== 0) return;
    try {
      const rows = await this.db.query<{ at: string | number }>(
        "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0') AS at",
      );
      const at = Number(rows[0]?.at ?? 0);
      this.last ??= at;
      if (at - this.last < WAL_CHECKPOINT_BYTES) return;
      await this.db.execScript('CHECKPOINT');
      this.last = at;
    } catch {
      // A checkpoint is housekeeping: the next check tries again, and no statement fails for it.
    }
  }
}

/** Statements between two reads of the WAL's position (a read costs a round trip to the thread). */
const WAL_CHECK_EVERY = 10;
/** WAL written between two checkpoints. */
const WAL_CHECKPOINT_BYTES = 32 * 1024 * 1024;

function executorOf(thread: DatabaseThread): SqlExecutor {
  return {
    query: async <T extends object>(sql: string, params: readonly unknown[] = []) =>
      (await thread.send({ type: 'query', sql, params: [...params] })) as T[],
    execScript: async (sql: string) => {
      await thread.send({ type: 'exec', sql });
    },
  };
}

/**
 * From dist/ the worker is JavaScript. From src/ (tsx, vitest) it is TypeScript, which a
 * bare worker cannot load: a small bootstrap registers tsx in the thread, then imports it.
 */
function startWorker(clusterDir: string): Worker {
  const options = { workerData: { clusterDir } };
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./pglite-worker.js', import.meta.url), options);
  // The ESM build of tsx's API (its CommonJS twin cannot register from an eval'd worker).
  const tsxApi = createRequire(import.meta.url)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs');
  const script = new URL('./pglite-worker.ts', import.meta.url).href;
  const bootstrap =
    `import(${JSON.stringify(pathToFileURL(tsxApi).href)})` +
    `.then((tsx) => { tsx.register(); return import(${JSON.stringify(script)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/** The worker and its pending requests. It keeps the process alive only while a request waits. */
class DatabaseThread {
  private readonly worker: Worker;
  private readonly pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  private nextId = 1;
  private failure: Error | undefined;

  constructor(clusterDir: string) {
    this.worker = startWorker(clusterDir);
    this.worker.unref();
    this.worker.on('message', (reply: ThreadReply) => this.settle(reply));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) =>
      this.fail(new Error(`the ledger's database thread stopped (exit code ${code})`)),
    );
  }

  send(request: Request): Promise<unknown> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id } satisfies ThreadRequest);
    });
  }

  async stop(): Promise<void> {
    this.failure ??= new Error('the embedded ledger was closed');
    await this.worker.terminate();
  }

  private settle(reply: ThreadReply): void {
    const waiting = this.pending.get(reply.id);
    if (waiting === undefined) return;
    this.forget(reply.id);
    if (reply.ok) waiting.resolve(reply.result);
    else waiting.reject(deserializeError(reply.error));
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const [id, waiting] of this.pending) {
      this.forget(id);
      waiting.reject(error);
    }
  }

  private forget(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
  }
}
