import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  statSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { dirname } from 'node:path';
import pg from 'pg';
import { CODE } from '../errors/codes.js';
import { messageOf } from '../errors/evsync-error.js';
import { postgresBinaries } from './embedded-binaries.js';
import { startKeeper } from './embedded-keeper.js';
import { embeddedPaths, socketUrl, type EmbeddedPaths } from './embedded-paths.js';
import { acquireFolderLock } from './folder-lock.js';
import { holdsLock, isAlive, isPostmasterOf, isZombie } from './process-identity.js';
import { LedgerBusyError, LedgerError } from './ledger-error.js';

export interface EmbeddedServerOptions {
  /** Seconds without a client after which the server stops by itself. @defaultValue 60 */
  idleSeconds?: number;
  /** Told once when a ledger of an earlier release is taken over (docs/ledger.md, "Upgrade"). */
  notify?: (message: string) => void;
}

/** The server's settings, beside PostgreSQL's defaults (docs/ledger.md, "Where it lives"). */
const SERVER_SETTINGS = [
  'listen_addresses=',
  'unix_socket_permissions=0700',
  'max_connections=60',
  // The WAL is part of the folder: with 1 MB segments (initdb), a checkpoint every 32 MB
  // written, and no segment kept for reuse, it stays a tenth of a 200,000-user ledger.
  'min_wal_size=2MB',
  'max_wal_size=32MB',
  'wal_recycle=off',
  'log_min_messages=warning',
  // Fewer resident processes: no I/O workers (PostgreSQL 18's default is three), no
  // logical replication launcher (nothing replicates from here).
  'io_method=sync',
  'max_logical_replication_workers=0',
];
/** How long a start (or a stop that a start waits for) may take before it is reported. */
const START_TIMEOUT_MS = 60_000;
const POLL_MS = 25;

/**
 * Makes sure the data folder's PostgreSQL server runs, and joins it: `join` gets its URL and
 * opens the caller's first connection. The first process that needs the ledger starts the
 * server (creating the cluster on first use, and taking over a PGlite ledger of an earlier
 * release); the others join it.
 *
 * Starting, joining and the keeper's idle stop take turns under one lock (`startLock`, a
 * pid file, so that a holder killed half way is replaced at once). A joiner holds it until
 * its first connection is open, so that the keeper, which counts connections, can never
 * stop the server between a joiner's look and its connection: a server told to stop with
 * a newcomer on board would wait for that newcomer while refusing its next connections.
 */
export async function joinEmbeddedServer<T>(
  dataDir: string,
  options: EmbeddedServerOptions,
  join: (url: string, paths: EmbeddedPaths) => Promise<T>,
): Promise<T> {
  const paths = embeddedPaths(dataDir);
  const url = socketUrl(paths.socketDir);
  const release = await takeJoinLock(paths);
  try {
    if (!(await accepts(url))) await startServer(paths, url, options);
    ensureKeeper(paths, options.idleSeconds ?? 60);
    return await join(url, paths);
  } finally {
    release();
  }
}

/**
 * Makes sure the data folder's server runs and returns its URL, without holding a
 * connection: for tools and tests that connect on their own (the keeper may stop an idle
 * server at any time after this returns).
 */
export async function ensureEmbeddedServer(
  dataDir: string,
  options: EmbeddedServerOptions = {},
): Promise<{ url: string; paths: EmbeddedPaths }> {
  return joinEmbeddedServer(dataDir, options, (url, paths) => Promise.resolve({ url, paths }));
}

async function startServer(paths: EmbeddedPaths, url: string, options: EmbeddedServerOptions): Promise<void> {
  const binaries = postgresBinaries();
  const owner = serverOwner();
  if (owner !== undefined) {
    mkdirSync(paths.dataDir, { recursive: true });
    letServerThrough(paths.dataDir);
  }
  const created = !existsSync(`${paths.clusterDir}/PG_VERSION`);
  if (created) initCluster(paths, binaries.initdb, owner);
  // A server that is shutting down (idle) refuses newcomers: wait until it is gone.
  if (await waitForOldServer(paths, url)) return;
  if (existsSync(`${paths.legacyDir}/PG_VERSION`)) {
    const { takeOverPgliteLedger } = await import('./embedded-takeover.js');
    await takeOverPgliteLedger(
      paths,
      (socketDir) => runServer(paths, binaries.postgres, owner, socketDir),
      options.notify,
    );
  }
  const server = await runServer(paths, binaries.postgres, owner, paths.socketDir);
  server.child.unref();
  if (created) await dropSpareTemplate(url);
}

/**
 * Nothing here creates a database (the tables are in `postgres`), yet initdb's template0 is
 * 7 MB of every ledger's folder, a quarter of a new one: dropped once, when the cluster is
 * made. template1 stays (pg_upgrade connects to it). A cluster keeping template0 works alike.
 */
async function dropSpareTemplate(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('ALTER DATABASE template0 IS_TEMPLATE false');
    await client.query('DROP DATABASE template0');
  } catch {
    // Best effort, as said above.
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A running server: its process, and how to stop it (used by the takeover's private one). */
export interface StartedServer {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

async function runServer(
  paths: EmbeddedPaths,
  postgres: string,
  owner: Owner | undefined,
  socketDir: string,
): Promise<StartedServer> {
  ownedFolder(socketDir, owner);
  const log = openSync(paths.logFile, 'a');
  const args = ['-D', paths.clusterDir, '-k', socketDir, ...SERVER_SETTINGS.flatMap((s) => ['-c', s])];
  const child = spawn(postgres, args, {
    detached: true,
    stdio: ['ignore', log, log],
    ...(owner === undefined ? {} : { uid: owner.uid, gid: owner.gid }),
  });
  closeSync(log);
  let exited: string | undefined;
  child.on('exit', (code, signal) => (exited = signal ?? String(code)));
  child.on('error', (error) => (exited = error.message));
  const url = socketUrl(socketDir);
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await accepts(url))) {
    if (exited !== undefined || Date.now() > deadline) {
      if (exited === undefined) child.kill('SIGKILL');
      throw unavailable(paths, `the server did not start (${exited ?? 'timed out'}); ${logTail(paths)}`);
    }
    await sleep(POLL_MS);
  }
  return {
    child,
    url,
    stop: async () => {
      if (exited !== undefined) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      // Fast shutdown: a checkpoint, then out; nobody else knows this server's socket.
      child.kill('SIGINT');
      await gone;
    },
  };
}

function initCluster(paths: EmbeddedPaths, initdb: string, owner: Owner | undefined): void {
  // Made aside and moved in whole: a start killed half way leaves no half cluster.
  const fresh = `${paths.clusterDir}.init`;
  rmSync(fresh, { recursive: true, force: true });
  mkdirSync(paths.dataDir, { recursive: true });
  ownedFolder(fresh, owner);
  try {
    execFileSync(
      initdb,
      [
        '-D',
        fresh,
        '-U',
        'evsync',
        '-A',
        'trust',
        '-E',
        'UTF8',
        '--locale=C',
        '--wal-segsize=1',
        '--no-instructions',
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        ...(owner === undefined ? {} : { uid: owner.uid, gid: owner.gid }),
      },
    );
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    rmSync(fresh, { recursive: true, force: true });
    throw unavailable(paths, `creating its cluster failed: ${stderr || messageOf(error)}`, error);
  }
  renameSync(fresh, paths.clusterDir);
}

/**
 * PostgreSQL refuses to run as root. Run as root (a container, CI), the server runs as the
 * `postgres` user, or `nobody`, and owns the cluster; the ledger's client stays root.
 */
interface Owner {
  uid: number;
  gid: number;
}

function serverOwner(): Owner | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const user of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
      if (Number.isInteger(uid) && Number.isInteger(gid)) return { uid, gid };
    } catch {
      // No such user: try the next.
    }
  }
  throw new LedgerError(
    'The embedded ledger runs PostgreSQL, which refuses to run as root, and this machine has no `postgres` or `nobody` user to run it as. ' +
      'Run evsync as another user, or set DATABASE_URL.',
    { code: CODE.EVSYNC_LEDGER_UNAVAILABLE },
  );
}

/**
 * Run as root, the server's user must pass through the folders above the cluster: root's
 * own folders on the way (a temp folder is 0700) get the search bit for others, nothing
 * else (neither reading their list nor writing).
 */
function letServerThrough(dir: string): void {
  for (let at = dir; ; at = dirname(at)) {
    try {
      const { mode, uid } = statSync(at);
      if (uid === 0 && (mode & 0o001) === 0) chmodSync(at, (mode & 0o7777) | 0o001);
    } catch {
      // Not ours to change: the server's start says what it could not reach.
    }
    if (dirname(at) === at) return;
  }
}

function ownedFolder(dir: string, owner: Owner | undefined): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (owner !== undefined) chownSync(dir, owner.uid, owner.gid);
}

/**
 * Whether a server from before still holds the cluster (`postmaster.pid` names a live
 * postmaster of it): true when it answers after all, false once it is gone. A pid file
 * left by a server that was killed, whose pid another process has been given since, is
 * deleted: PostgreSQL would refuse to start while that stranger lives.
 */
async function waitForOldServer(paths: EmbeddedPaths, url: string): Promise<boolean> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const pid = postmasterPid(paths);
    if (pid === undefined || !isAlive(pid)) return false;
    // A server killed a moment ago is a zombie until its parent reaps it: wait for that.
    // A live process of another kind was given its pid since: PostgreSQL would take it for
    // a server still running, so its pid files go (a dead pid PostgreSQL handles itself).
    if (!isPostmasterOf(pid, paths.clusterDir) && !isZombie(pid)) {
      rmSync(`${paths.clusterDir}/postmaster.pid`, { force: true });
      rmSync(`${paths.socketDir}/.s.PGSQL.5432.lock`, { force: true });
      return false;
    }
    if (await accepts(url)) return true;
    if (Date.now() > deadline)
      throw unavailable(paths, `its server (process ${pid}) neither answers nor stops`);
    await sleep(POLL_MS * 4);
  }
}

export function postmasterPid(paths: EmbeddedPaths): number | undefined {
  try {
    const pid = Number.parseInt(
      readFileSync(`${paths.clusterDir}/postmaster.pid`, 'utf8').split('\n')[0] ?? '',
      10,
    );
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The join lock's turn within this process: one caller at a time, the others queued. */
const turns = new Map<string, Promise<void>>();

async function takeJoinLock(paths: EmbeddedPaths): Promise<() => void> {
  const before = turns.get(paths.startLock) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  const queue = before.then(() => mine);
  turns.set(paths.startLock, queue);
  await before;
  const leave = (): void => {
    done();
    if (turns.get(paths.startLock) === queue) turns.delete(paths.startLock);
  };
  // Held for moments (a join), seconds (a start, a keeper's stop), longer for the takeover
  // of a large ledger of an earlier release: wait, never bypass.
  const deadline = Date.now() + START_TIMEOUT_MS * 5;
  for (;;) {
    try {
      const release = acquireFolderLock(paths.startLock, `The embedded ledger's start in ${paths.dataDir}`);
      return () => {
        release();
        leave();
      };
    } catch (error) {
      if (!(error instanceof LedgerBusyError) || Date.now() > deadline) {
        leave();
        throw error;
      }
      await sleep(POLL_MS);
    }
  }
}

/** Whether the server takes a connection now (a connection refused or "starting up" is not). */
export async function accepts(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A keeper stops the server when idle (`embedded-keeper.ts`); a killed one is replaced here. */
function ensureKeeper(paths: EmbeddedPaths, idleSeconds: number): void {
  if (!lockHolderAlive(paths.keeperLock)) startKeeper(paths, idleSeconds);
}

function lockHolderAlive(lockPath: string): boolean {
  try {
    const pid = Number.parseInt(readFileSync(lockPath, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 && holdsLock(pid, lockPath);
  } catch {
    return false;
  }
}

function logTail(paths: EmbeddedPaths): string {
  try {
    const lines = readFileSync(paths.logFile, 'utf8').trim().split('\n').slice(-3).join(' | ');
    return `its log (${paths.logFile}) ends: ${lines}`;
  } catch {
    return `see ${paths.logFile}`;
  }
}

function unavailable(paths: EmbeddedPaths, why: string, cause?: unknown): LedgerError {
  return new LedgerError(
    `Could not start the embedded ledger in ${paths.dataDir}: ${why}. ` +
      'Check that the folder is writable, or set EVSYNC_DATA_DIR to another folder (or DATABASE_URL).',
    { code: CODE.EVSYNC_LEDGER_UNAVAILABLE, retryable: true, ...(cause === undefined ? {} : { cause }) },
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Stops the data folder's server now (a fast shutdown: clients are disconnected) and waits
 * until it is gone; nothing when none runs. For a folder about to be deleted or moved.
 */
export async function stopEmbeddedServer(dataDir: string): Promise<void> {
  const paths = embeddedPaths(dataDir);
  const pid = postmasterPid(paths);
  if (pid === undefined || !isPostmasterOf(pid, paths.clusterDir)) return;
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (isPostmasterOf(pid, paths.clusterDir) && Date.now() < deadline) await sleep(POLL_MS);
}
