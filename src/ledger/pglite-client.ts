import { messageOf } from '../errors/evsync-error.js';
import { join } from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { acquireFolderLock } from './folder-lock.js';
import { LedgerError } from './ledger-error.js';
import type { SqlClient, SqlExecutor } from './sql-client.js';

export interface EmbeddedClientHandle {
  client: SqlClient;
  /** The PGlite cluster folder. */
  clusterDir: string;
}

/**
 * Opens (creating on first use) the PGlite cluster in `<dataDir>/ledger`, guarded by a
 * pid lock `<dataDir>/ledger.lock`. PGlite has a single connection, so the migration
 * lock is simply that connection, held for the duration of a transaction.
 */
export async function openPgliteClient(dataDir: string): Promise<EmbeddedClientHandle> {
  const clusterDir = join(dataDir, 'ledger');
  const release = acquireFolderLock(join(dataDir, 'ledger.lock'), `The embedded ledger in ${dataDir}`);
  let db: PGlite;
  try {
    db = await PGlite.create(clusterDir);
  } catch (error) {
    release();
    throw new LedgerError(
      `Could not open the embedded ledger in ${clusterDir}: ${messageOf(error)}. ` +
        'Check that the folder is writable, or set EVSYNC_DATA_DIR to another folder.',
      { code: 'EVSYNC_LEDGER_UNAVAILABLE', retryable: true, cause: error },
    );
  }
  let closed = false;
  const client: SqlClient = {
    ...executorOf(db),
    transaction: (work) => db.transaction((tx) => work(executorOf(tx))),
    withMigrationLock: (work) => work(client),
    close: async () => {
      if (closed) return;
      closed = true;
      try {
        await db.close();
      } finally {
        release();
      }
    },
  };
  return { client, clusterDir };
}

function executorOf(db: PGlite | Transaction): SqlExecutor {
  return {
    query: async <T extends object>(sql: string, params: readonly unknown[] = []) =>
      (await db.query<T>(sql, [...params])).rows,
    execScript: async (sql: string) => {
      await db.exec(sql);
    },
  };
}
