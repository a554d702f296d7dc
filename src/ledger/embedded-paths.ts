import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the pieces of one embedded ledger live; every piece is keyed by its data folder. */
export interface EmbeddedPaths {
  /** The data folder (`EVSYNC_DATA_DIR`, default `./.evsync`), absolute. */
  dataDir: string;
  /** The PostgreSQL cluster: the one thing to back up (with the rest of the data folder). */
  clusterDir: string;
  /** Where the server's socket is: the cluster itself, or a folder of this user's in the temp folder. */
  socketDir: string;
  /** Held by the process that starts the server, so that one starts it and the others join. */
  startLock: string;
  /** Held by the process that stops the server once idle (`embedded-keeper.ts`). */
  keeperLock: string;
  /** The server's own log (start-up failures, crashes). */
  logFile: string;
  /** The PGlite cluster of releases before the shared embedded ledger (taken over on first use). */
  legacyDir: string;
  /** Where the PGlite cluster goes once taken over, for the user to delete. */
  legacyBackupDir: string;
}

/** A Unix socket's path must fit `sun_path` (104 bytes on macOS, 108 on Linux). */
const SOCKET_PATH_MAX = 100;
const SOCKET_NAME = '.s.PGSQL.5432';

export function embeddedPaths(dataDir: string): EmbeddedPaths {
  const clusterDir = join(dataDir, 'postgres');
  return {
    dataDir,
    clusterDir,
    socketDir: socketDirFor(clusterDir),
    startLock: join(dataDir, 'postgres.start.lock'),
    keeperLock: join(clusterDir, 'evsync-keeper.lock'),
    logFile: join(dataDir, 'postgres.log'),
    legacyDir: join(dataDir, 'ledger'),
    legacyBackupDir: join(dataDir, 'ledger.before-upgrade'),
  };
}

/**
 * The server listens on a Unix socket only (no TCP port: two folders, two users, never
 * meet on one), with owner-only permissions. It sits in the cluster itself when the path
 * is short enough; otherwise in a folder named after the user and the cluster's path.
 */
function socketDirFor(clusterDir: string): string {
  if (join(clusterDir, SOCKET_NAME).length <= SOCKET_PATH_MAX) return clusterDir;
  const digest = createHash('sha256').update(clusterDir).digest('hex').slice(0, 16);
  const user = process.getuid?.() ?? 'user';
  return join(tmpdir(), `evsync-${user}-${digest}`);
}

/** A `pg` connection URL to the socket (no password: the socket is the owner's only). */
export function socketUrl(socketDir: string): string {
  return `postgresql://evsync@localhost/postgres?host=${encodeURIComponent(socketDir)}`;
}
