import { resolve } from 'node:path';
import type { Ledger } from './ledger.js';
import { LedgerBusyError } from './ledger-error.js';
import { migrate } from './migrate.js';
import { openPgliteClient } from './pglite-client.js';
import type { SqlClient } from './sql-client.js';
import { SqlLedger } from './sql-ledger.js';

export interface OpenLedgerOptions {
  /**
   * PostgreSQL connection URL. When set, the ledger lives on that server and can be shared
   * by several processes. An empty string forces the embedded ledger whatever the
   * environment says. @defaultValue `env.DATABASE_URL`
   */
  databaseUrl?: string;
  /**
   * Folder of the embedded ledger (PGlite), used when there is no database URL.
   * @defaultValue `env.EVSYNC_DATA_DIR`, else `./.evsync`
   */
  dataDir?: string;
  /** Where `DATABASE_URL` and `EVSYNC_DATA_DIR` are read. @defaultValue `process.env` */
  env?: NodeJS.ProcessEnv;
  /** PostgreSQL schema for the tables (created if missing). @defaultValue the server's `search_path` */
  schema?: string;
  /**
   * When the embedded ledger is open in another process (`EVSYNC_LEDGER_BUSY`), wait for it
   * to be let go instead of failing; called once with who holds it. A server ledger never waits here.
   */
  wait?: (reason: string) => void;
  /** Gives up that wait (Ctrl-C): the busy error is thrown. */
  signal?: AbortSignal;
}

/** How often a busy embedded ledger is tried again while waiting for it. */
const BUSY_POLL_MS = 250;

/**
 * Opens the ledger the environment asks for and brings its schema up to date: PostgreSQL
 * when a database URL is given, otherwise the embedded PGlite ledger in the data folder.
 */
export async function openLedger(options: OpenLedgerOptions = {}): Promise<Ledger> {
  // An explicit empty string asks for the embedded ledger whatever DATABASE_URL says (`evsync demo`).
  const env = options.env ?? process.env;
  const databaseUrl = nonEmpty(options.databaseUrl ?? env.DATABASE_URL);
  if (databaseUrl !== undefined) {
    // Lazy: only a server ledger needs the pg driver, not the embedded one of most runs.
    const { openPgClient } = await import('./pg-client.js');
    const client = await openPgClient({
      databaseUrl,
      ...(options.schema === undefined ? {} : { schema: options.schema }),
    });
    return ready(client, 'postgres', describeDatabase(databaseUrl, options.schema));
  }
  const dataDir = resolve(options.dataDir ?? nonEmpty(env.EVSYNC_DATA_DIR) ?? './.evsync');
  const { client, clusterDir } = await openEmbedded(dataDir, options.wait, options.signal);
  return ready(client, 'embedded', `embedded ledger in ${clusterDir}`);
}

async function openEmbedded(
  dataDir: string,
  wait: ((reason: string) => void) | undefined,
  signal: AbortSignal | undefined,
): ReturnType<typeof openPgliteClient> {
  let told = false;
  for (;;) {
    try {
      return await openPgliteClient(dataDir);
    } catch (error) {
      if (wait === undefined || signal?.aborted || !(error instanceof LedgerBusyError)) throw error;
      if (!told) wait(error.holder);
      told = true;
      await new Promise((resolve) => setTimeout(resolve, BUSY_POLL_MS));
    }
  }
}

async function ready(client: SqlClient, kind: 'embedded' | 'postgres', description: string): Promise<Ledger> {
  try {
    await migrate(client, undefined, `The ${description}`);
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
  return new SqlLedger(client, kind, description);
}

/** `PostgreSQL ledger at host:port/db (schema s)`: never the user or password. */
function describeDatabase(url: string, schema: string | undefined): string {
  let where = 'the DATABASE_URL server';
  try {
    const parsed = new URL(url);
    where = `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`;
  } catch {
    // A libpq keyword string is not a URL; keep the generic wording.
  }
  return `PostgreSQL ledger at ${where}${schema === undefined ? '' : ` (schema ${schema})`}`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
