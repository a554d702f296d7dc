import { CODE } from '../errors/codes.js';
import { messageOf } from '../errors/evsync-error.js';
import { LedgerError } from './ledger-error.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';
import type { SqlClient } from './sql-client.js';

export interface MigrationOutcome {
  /** Version of the database after migrating. */
  version: number;
  /** Versions applied by this call (empty when the database was up to date). */
  applied: number[];
}

const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS evsync_schema_version (
  version    integer PRIMARY KEY,
  name       text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/**
 * Brings the schema up to date under the client's migration lock, each migration in its
 * own transaction with its version row. Refuses a database migrated by a newer evsync:
 * writing to it could corrupt data this code does not understand.
 */
export async function migrate(
  client: SqlClient,
  migrations: readonly Migration[] = MIGRATIONS,
  where = 'the ledger',
): Promise<MigrationOutcome> {
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  return client.withMigrationLock(async (locked) => {
    await locked.execScript(VERSION_TABLE);
    const rows = await locked.query<{ version: number }>('SELECT version FROM evsync_schema_version');
    const done = new Set(rows.map((row) => Number(row.version)));
    const current = Math.max(0, ...done);
    if (current > latest) {
      throw new LedgerError(
        `${where} has schema version ${current}, newer than this evsync knows (${latest}). ` +
          'Upgrade evsync, or point DATABASE_URL / EVSYNC_DATA_DIR at another ledger.',
        { code: CODE.EVSYNC_LEDGER_TOO_NEW },
      );
    }
    const applied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      // Each missing version, not only those above the newest: migrations written side by
      // side may land out of order, and a ledger already at the later one still needs the other.
      if (done.has(migration.version)) continue;
      await applyOne(locked, migration, where);
      applied.push(migration.version);
    }
    return { version: Math.max(current, latest), applied };
  });
}

async function applyOne(client: SqlClient, migration: Migration, where: string): Promise<void> {
  try {
    await client.transaction(async (tx) => {
      await tx.execScript(migration.sql);
      await tx.query('INSERT INTO evsync_schema_version (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
    });
  } catch (error) {
    throw new LedgerError(
      `Migration ${migration.version} (${migration.name}) of ${where} failed and was rolled back: ${messageOf(
        error,
      )}`,
      { code: CODE.EVSYNC_LEDGER_MIGRATION, cause: error },
    );
  }
}
