/**
 * Takes over the PGlite ledger of the releases before the shared embedded ledger
 * (`.evsync/ledger`, PGlite 0.3.8): every row of every table is copied into the new
 * cluster in one transaction, checked by counts, and the old folder is kept aside as
 * `ledger.before-upgrade` (docs/ledger.md, "Upgrade from the PGlite ledger").
 */
import { existsSync, renameSync } from 'node:fs';
import { CODE } from '../errors/codes.js';
import { messageOf } from '../errors/evsync-error.js';
import type { EmbeddedPaths } from './embedded-paths.js';
import type { StartedServer } from './embedded-server.js';
import { LedgerError } from './ledger-error.js';
import { migrate } from './migrate.js';
import { openPgClient } from './pg-client.js';
import type { SqlClient, SqlExecutor } from './sql-client.js';

/** Marks a copy that committed, in the same transaction: a takeover cut off later is not copied twice. */
const MARK_TABLE = 'evsync_pglite_takeover';
/** Rows per page read from PGlite and written to the server. */
const PAGE = 2000;

export async function takeOverPgliteLedger(
  paths: EmbeddedPaths,
  startPrivate: (socketDir: string) => Promise<StartedServer>,
  notify: ((message: string) => void) | undefined,
): Promise<void> {
  // The old ledger's own lock keeps an older evsync out of it meanwhile.
  const { openPgliteClient } = await import('./pglite-client.js');
  const legacy = await openPgliteClient(paths.dataDir);
  // A socket nobody else knows: no client joins before the copy is in.
  const server = await startPrivate(`${paths.clusterDir}/takeover`);
  let target: SqlClient | undefined;
  try {
    await migrate(
      legacy.client,
      undefined,
      `The embedded ledger of the earlier release in ${legacy.clusterDir}`,
    );
    target = await openPgClient({ databaseUrl: server.url, poolSize: 2 });
    await migrate(target, undefined, 'The embedded ledger');
    const copied = await copyOnce(legacy.client, target);
    await legacy.client.close();
    if (!existsSync(paths.legacyBackupDir)) renameSync(paths.legacyDir, paths.legacyBackupDir);
    if (copied !== undefined)
      (notify ?? tellOnStderr)(
        `took over the embedded ledger of the earlier release (${copied.runs} runs, ${copied.rows} rows): ` +
          `it now runs on PostgreSQL in ${paths.clusterDir}, shared by every evsync process. ` +
          `The old folder is kept as ${paths.legacyBackupDir}: delete it once you no longer need it.`,
      );
  } catch (error) {
    await legacy.client.close().catch(() => undefined);
    throw new LedgerError(
      `Could not take over the embedded ledger of the earlier release in ${paths.legacyDir}: ${messageOf(error)}. ` +
        'Nothing was changed in it; the next command tries again.',
      { code: CODE.EVSYNC_LEDGER_MIGRATION, cause: error },
    );
  } finally {
    await target?.close().catch(() => undefined);
    await server.stop();
  }
}

function tellOnStderr(message: string): void {
  process.stderr.write(`evsync: ${message}\n`);
}

/** Copies every table unless a copy already committed; what it copied, or undefined. */
async function copyOnce(
  source: SqlClient,
  target: SqlClient,
): Promise<{ runs: number; rows: number } | undefined> {
  return target.transaction(async (tx) => {
    await tx.query(`CREATE TABLE IF NOT EXISTS ${MARK_TABLE} (taken_at timestamptz NOT NULL DEFAULT now())`);
    const done = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${MARK_TABLE}`);
    if ((done[0]?.n ?? 0) > 0) return undefined;
    // Rows go in as they were; the foreign keys held in the source.
    await tx.query('SET LOCAL session_replication_role = replica');
    let rows = 0;
    for (const table of await tablesOf(source)) {
      rows += await copyTable(source, tx, table);
    }
    for (const { sequencename, last_value } of await source.query<{
      sequencename: string;
      last_value: string | null;
    }>("SELECT sequencename, last_value::text FROM pg_sequences WHERE schemaname = 'public'")) {
      if (last_value !== null)
        await tx.query('SELECT setval($1::regclass, $2::bigint)', [sequencename, last_value]);
    }
    await tx.query(`INSERT INTO ${MARK_TABLE} DEFAULT VALUES`);
    const runs = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM runs');
    return { runs: runs[0]?.n ?? 0, rows };
  });
}

/** Every table of the ledger but the migrations' own (both sides ran the same ones). */
async function tablesOf(source: SqlExecutor): Promise<string[]> {
  const rows = await source.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'evsync_schema_version'
      ORDER BY table_name`,
  );
  return rows.map((row) => row.name);
}

/** One table, page by page in the source's physical order, each page as one JSON parameter. */
async function copyTable(source: SqlExecutor, target: SqlExecutor, table: string): Promise<number> {
  const columns = (
    await source.query<{ name: string }>(
      `SELECT column_name AS name FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
      [table],
    )
  ).map((row) => `"${row.name}"`);
  const list = columns.join(', ');
  // The new cluster holds only what its migrations wrote (a fresh ledger id): the old one's wins.
  await target.query(`DELETE FROM "${table}"`);
  let after = '(0,0)';
  let copied = 0;
  for (;;) {
    const page = await source.query<{ last: string; rows: unknown[] }>(
      `SELECT max(ctid)::text AS last, json_agg(t) AS rows FROM (
         SELECT ctid, ${list} FROM "${table}" WHERE ctid > $1::tid ORDER BY ctid LIMIT ${PAGE}) t`,
      [after],
    );
    const rows = page[0]?.rows;
    if (rows === undefined || rows === null || rows.length === 0) break;
    await target.query(
      `INSERT INTO "${table}" (${list}) OVERRIDING SYSTEM VALUE
         SELECT ${list} FROM json_populate_recordset(NULL::"${table}", $1::json)`,
      [JSON.stringify(rows)],
    );
    copied += rows.length;
    after = page[0]!.last;
    if (rows.length < PAGE) break;
  }
  const [counted] = await target.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table}"`);
  if (counted?.n !== copied)
    throw new Error(`table ${table}: ${copied} rows read, ${counted?.n ?? 0} written`);
  return copied;
}
