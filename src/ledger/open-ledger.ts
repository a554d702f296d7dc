import { resolve } from 'node:path';
import type { Ledger } from './ledger.js';
import { joinEmbeddedServer } from './embedded-server.js';
import { migrate } from './migrate.js';
import { openPgClient } from './pg-client.js';
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
   * Folder of the embedded ledger (a PostgreSQL server of its own), used when there is no database URL.
   * @defaultValue `env.EVSYNC_DATA_DIR`, else `./.evsync`
   */
  dataDir?: string;
  /** Where `DATABASE_URL` and `EVSYNC_DATA_DIR` are read. @defaultValue `process.env` */
  env?: NodeJS.ProcessEnv;
  /** PostgreSQL schema for the tables (created if missing). @defaultValue the server's `search_path` */
  schema?: string;
  /**
   * Told once when a ledger of an earlier release (PGlite) is taken over.
   * @defaultValue a line on standard error
   */
  notify?: (message: string) => void;
}

/** Seconds an embedded ledger's server stays up with no process using it. */
const DEFAULT_IDLE_SECONDS = 60;

/**
 * Opens the ledger the environment asks for and brings its schema up to date: PostgreSQL
 * when a database URL is given, otherwise the embedded ledger of the data folder.
 */
export async function openLedger(options: OpenLedgerOptions = {}): Promise<Ledger> {
  // An explicit empty string asks for the embedded ledger whatever DATABASE_URL says (`evsync demo`).
  const env = options.env ?? process.env;
  const databaseUrl = nonEmpty(options.databaseUrl ?? env.DATABASE_URL);
  if (databaseUrl !== undefined) {
    const client = await openPgClient({
      databaseUrl,
      ...(options.schema === undefined ? {} : { schema: options.schema }),
    });
    return ready(client, 'postgres', describeDatabase(databaseUrl, options.schema));
  }
  const dataDir = resolve(options.dataDir ?? nonEmpty(env.EVSYNC_DATA_DIR) ?? './.evsync');
  // The embedded ledger is a PostgreSQL server of the data folder's own, started by the
  // first process that needs it and shared by the others (docs/ledger.md, "Where it lives").
  const serverOptions = {
    idleSeconds: idleSeconds(env.EVSYNC_LEDGER_IDLE_SECONDS),
    ...(options.notify === undefined ? {} : { notify: options.notify }),
  };
  const { client, paths } = await joinEmbeddedServer(dataDir, serverOptions, async (url, paths) => ({
    paths,
    client: await openPgClient({
      databaseUrl: url,
      ...(options.schema === undefined ? {} : { schema: options.schema }),
      embedded: {
        rejoin: (connect) => joinEmbeddedServer(dataDir, serverOptions, connect),
      },
    }),
  }));
  return ready(client, 'embedded', `embedded ledger in ${paths.clusterDir}`);
}

function idleSeconds(value: string | undefined): number {
  const seconds = Number(value);
  return value !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds : DEFAULT_IDLE_SECONDS;
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
