import { createHash } from 'node:crypto';
import { CODE } from '../errors/codes.js';
import { messageOf } from '../errors/evsync-error.js';
import pg from 'pg';
import { LedgerError } from './ledger-error.js';
import type { SqlClient, SqlExecutor } from './sql-client.js';

export interface PgClientOptions {
  /** Connection URL; never logged or shown in clear. */
  databaseUrl: string;
  /**
   * A schema for evsync's tables, created if missing and put first on `search_path`.
   * @defaultValue the server's default (`public`)
   */
  schema?: string;
  /** @defaultValue 4 */
  poolSize?: number;
  /**
   * The embedded ledger's server (`embedded-server.ts`): idle connections are kept, so that
   * an open process counts as a client and the server does not stop under it, and a server
   * found gone is joined again (`rejoin`: started if need be, then `connect` run under the
   * join lock) before the statement that found it is tried once more, when nothing of it
   * had been sent.
   */
  embedded?: { rejoin: (connect: () => Promise<void>) => Promise<void> };
}

/** The server refused or was not there: nothing of the statement was sent. */
const CONNECT_FAILED = new Set(['ECONNREFUSED', 'ENOENT', '57P03']);
/** The server went away during a statement: it may or may not have been done. */
const CONNECTION_LOST = new Set(['57P01', '57P02', '08006', '08003', 'ECONNRESET', 'EPIPE']);

/** How often a lock is asked for on an embedded server that went away meanwhile. */
const LOCK_ATTEMPTS = 3;

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

function lostServer(error: unknown): boolean {
  const code = errorCode(error);
  if (code !== undefined) return CONNECT_FAILED.has(code) || CONNECTION_LOST.has(code);
  return /Connection terminated/i.test(messageOf(error));
}

/**
 * A server that went away under a statement, said as such: its bare error (`write EPIPE`)
 * was all a run that stopped on it said. The statement may or may not have been done.
 */
function serverLost(error: unknown, rejoined: boolean): LedgerError {
  const which = rejoined
    ? "The embedded ledger's server stopped during a statement, and was started again"
    : 'The connection to the PostgreSQL ledger (DATABASE_URL) was lost during a statement';
  return new LedgerError(
    `${which} (${messageOf(error)}); what the statement did may or may not be kept. ` +
      'Nothing is sent twice: `evsync resume` finishes a run that stopped on it.',
    { code: CODE.EVSYNC_LEDGER_UNAVAILABLE, retryable: true, cause: error },
  );
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * A named lock's advisory key: keyed by the schema the tables are in, however it was
 * chosen (option or URL), as two 32-bit hashes of the name: one would let two job names
 * collide now and then. `$1` is `advisoryKey(name)`.
 */
const ADVISORY_KEY_ARGS =
  "hashtext(coalesce(current_schema(), '') || ':' || $1), hashtext($1 || ':' || coalesce(current_schema(), ''))";

function advisoryKey(name: string): string {
  return `evsync:${name}`;
}

/**
 * A pg pool behind `SqlClient`. int8 columns arrive as strings (pg's default, to keep
 * precision); the ledger converts the ones it knows are small. Migrations take a
 * session-level advisory lock keyed by the schema, on one dedicated connection.
 */
export async function openPgClient(options: PgClientOptions): Promise<SqlClient> {
  const { schema } = options;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new LedgerError(`Ledger schema name "${schema}" is not a plain lowercase identifier.`, {
      code: CODE.EVSYNC_LEDGER_SCHEMA,
    });
  }
  const embedded = options.embedded;
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    max: options.poolSize ?? 4,
    ...(embedded === undefined ? {} : { idleTimeoutMillis: 0 }),
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  /** Joins the embedded server again, the pool holding a connection to it once done. */
  const rejoin = async (): Promise<void> => {
    await embedded?.rejoin(async () => {
      (await pool.connect()).release();
    });
  };
  /** Runs `work`; a lost embedded server is joined again, and `work` retried if nothing was sent. */
  const recovering = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (!lostServer(error)) throw error;
      if (embedded === undefined) throw serverLost(error, false);
      await rejoin();
      if (!CONNECT_FAILED.has(errorCode(error) ?? '')) throw serverLost(error, true);
      return work();
    }
  };
  try {
    // The embedded ledger opens its pool while it holds the join lock: no recovery here.
    const probe = await pool.connect();
    probe.release();
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new LedgerError(
      embedded === undefined
        ? `Could not connect to the PostgreSQL ledger (DATABASE_URL): ${messageOf(error)}. ` +
            'Check that the server is up and the URL is right, or unset DATABASE_URL to use the embedded ledger.'
        : `Could not connect to the embedded ledger's server: ${messageOf(error)}.`,
      { code: CODE.EVSYNC_LEDGER_UNAVAILABLE, retryable: true, cause: error },
    );
  }
  const pooled = executorOf(pool);

  const client: SqlClient = {
    query: (sql, params) => recovering(() => pooled.query(sql, params)),
    execScript: (sql) => recovering(() => pooled.execScript(sql)),
    transaction: async (work) => {
      const conn = await recovering(() => pool.connect());
      try {
        await conn.query('BEGIN');
        const result = await work(executorOf(conn));
        await conn.query('COMMIT');
        return result;
      } catch (error) {
        await conn.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        conn.release();
      }
    },
    withMigrationLock: async (work) => {
      const conn = await recovering(() => pool.connect());
      const lockKey = `evsync:migrate:${schema ?? ''}`;
      try {
        await conn.query('SELECT pg_advisory_lock(hashtext($1))', [lockKey]);
        if (schema !== undefined) await conn.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        return await work(client);
      } finally {
        await conn.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey]).catch(() => undefined);
        conn.release();
      }
    },
    tryLock: async (name, lockOptions = {}) => {
      if (lockOptions.signal?.aborted) return undefined;
      // A session-level advisory lock on a connection of its own: held as long as the
      // run goes on without taking one of the pool's, and let go if the process dies.
      const newConnection = (): pg.Client => {
        const conn = new pg.Client({
          connectionString: options.databaseUrl,
          ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
        });
        // A lost lock connection loses the lock; the run's own work goes on (and its
        // ledger writes report a server that went away).
        conn.on('error', () => undefined);
        return conn;
      };
      let conn = newConnection();
      const key = advisoryKey(name);
      let row: { ok: boolean } | undefined;
      // Giving up a wait (Ctrl-C) ends the connection, and with it the waiting statement.
      const giveUp = (): void => void conn.end().catch(() => undefined);
      lockOptions.signal?.addEventListener('abort', giveUp, { once: true });
      try {
        for (let attempt = 1; ; attempt += 1) {
          try {
            await conn.connect();
            [row] = (
              await conn.query<{ ok: boolean }>(
                lockOptions.wait === true
                  ? `SELECT true AS ok FROM (SELECT pg_advisory_lock(${ADVISORY_KEY_ARGS})) AS locked`
                  : `SELECT pg_try_advisory_lock(${ADVISORY_KEY_ARGS}) AS ok`,
                [key],
              )
            ).rows;
            break;
          } catch (error) {
            await conn.end().catch(() => undefined);
            if (lockOptions.signal?.aborted) return undefined;
            // An embedded server that stopped (idle) or was killed, before or while this
            // waited: a lost session holds no lock, so join the server again and ask again.
            if (embedded === undefined || !lostServer(error) || attempt >= LOCK_ATTEMPTS) {
              throw new LedgerError(`Could not lock ${name} in the PostgreSQL ledger: ${messageOf(error)}`, {
                code: CODE.EVSYNC_LEDGER_UNAVAILABLE,
                retryable: true,
                cause: error,
              });
            }
            await rejoin();
            conn = newConnection();
          }
        }
      } finally {
        lockOptions.signal?.removeEventListener('abort', giveUp);
      }
      if (row?.ok !== true) {
        await conn.end().catch(() => undefined);
        return undefined;
      }
      return async () => {
        await conn.query(`SELECT pg_advisory_unlock(${ADVISORY_KEY_ARGS})`, [key]).catch(() => undefined);
        await conn.end().catch(() => undefined);
      };
    },
    isLocked: async (name) => {
      // pg_locks shows a two-key advisory lock as classid and objid (oids), objsubid 2.
      const [row] = (
        await recovering(() =>
          pool.query<{ locked: boolean }>(
            `SELECT EXISTS (SELECT 1 FROM pg_locks l, (SELECT ${ADVISORY_KEY_ARGS}) AS k(a, b)
            WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
              AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND l.classid = (k.a::bigint & 4294967295)::oid AND l.objid = (k.b::bigint & 4294967295)::oid) AS locked`,
            [advisoryKey(name)],
          ),
        )
      ).rows;
      return row?.locked === true;
    },
    close: async () => {
      if (pool.ended || pool.ending) return;
      await pool.end();
    },
  };
  return client;
}

/**
 * Statements with params are prepared once per connection, named after their text: the
 * ledger runs a small fixed set of them, and planning one costs the server more than running
 * it (about 2 ms against 0.6 ms for a distributed worker's read of its intent).
 */
const statementNames = new Map<string, string>();

function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `evsync_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    statementNames.set(sql, name);
  }
  return name;
}

function executorOf(db: pg.Pool | pg.PoolClient): SqlExecutor {
  return {
    query: async <T extends object>(sql: string, params: readonly unknown[] = []) =>
      params.length === 0
        ? (await db.query<T & pg.QueryResultRow>(sql)).rows
        : (
            await db.query<T & pg.QueryResultRow>({
              name: statementName(sql),
              text: sql,
              values: [...params],
            })
          ).rows,
    execScript: async (sql: string) => {
      await db.query(sql);
    },
  };
}
