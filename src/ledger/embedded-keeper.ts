/**
 * The embedded ledger's keeper: a small process of its own, started beside the server by
 * the first client (`embedded-server.ts`), that stops the server once no client has been
 * connected for the idle time, then ends. It holds no data: killed, it loses nothing, and
 * the next client starts another. Usage: `node embedded-keeper.js DATA_DIR IDLE_SECONDS`.
 */
import { existsSync } from 'node:fs';
import pg from 'pg';
import { embeddedPaths, socketUrl } from './embedded-paths.js';
import { noteInLog, postmasterPid } from './embedded-server.js';
import { acquireFolderLock, isAlive } from './folder-lock.js';

const [dataDir, idleArg] = process.argv.slice(2);
if (dataDir === undefined) throw new Error('usage: embedded-keeper DATA_DIR IDLE_SECONDS');
const idleMs = Math.max(1, Number(idleArg ?? 60)) * 1000;
const paths = embeddedPaths(dataDir);
const TICK_MS = 1000;

/** Client backends other than the keeper's own connection. */
const COUNT_CLIENTS = `SELECT count(*)::int AS n FROM pg_stat_activity
  WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`;

async function keep(): Promise<void> {
  try {
    acquireFolderLock(paths.keeperLock, 'The embedded ledger keeper');
  } catch {
    return; // Another keeper watches this server.
  }
  let client: pg.Client | undefined;
  let idleSince: number | undefined;
  let server: number | undefined;
  for (;;) {
    if (server !== undefined && !existsSync(paths.clusterDir)) {
      // The folder was deleted under its server (a test's temp folder): nothing is left to keep.
      process.kill(server, 'SIGQUIT');
      break;
    }
    const pid = postmasterPid(paths);
    if (pid === undefined || !isAlive(pid)) break;
    server = pid;
    try {
      if (client === undefined) {
        client = new pg.Client({ connectionString: socketUrl(paths.socketDir) });
        client.on('error', () => undefined);
        await client.connect();
      }
      const n = (await client.query<{ n: number }>(COUNT_CLIENTS)).rows[0]?.n ?? 0;
      idleSince = n > 0 ? undefined : (idleSince ?? Date.now());
    } catch {
      // Starting, stopping or restarted: ask again with a new connection.
      await client?.end().catch(() => undefined);
      client = undefined;
      idleSince = undefined;
    }
    if (idleSince !== undefined && Date.now() - idleSince >= idleMs) {
      await client?.end().catch(() => undefined);
      client = undefined;
      noteInLog(paths, `no client for ${idleMs / 1000} s: stopping the server (process ${pid})`);
      // Smart shutdown: a client that joined meanwhile finishes its work; newcomers are
      // refused and start a new server once this one is gone.
      process.kill(pid, 'SIGTERM');
      while (isAlive(pid)) await sleep(TICK_MS / 10);
      break;
    }
    await sleep(TICK_MS);
  }
  await client?.end().catch(() => undefined);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

await keep();
process.exit(0);
