import { spawn } from 'node:child_process';
import type { EmbeddedPaths } from './embedded-paths.js';

/**
 * The embedded ledger's keeper: started beside the server by the client that finds none
 * (`embedded-server.ts`), it stops the server once no client has been connected for the
 * idle time, then ends. It holds no data: killed, it loses nothing, and the next client
 * starts another. A POSIX shell loop rather than a Node process: it costs about 3 MB where
 * Node with a driver cost 55 MB, a fifth of the demo's whole budget (docs/ledger.md).
 *
 * One keeper per cluster: its lock is a pid file that appears whole (written aside, then
 * hard-linked: `folder-lock.ts`); a lock whose process is gone is taken over. A client is a child of the server whose title is
 * `postgres: USER DATABASE [local] …` (PostgreSQL sets it for every client backend).
 *
 * The stop takes the join lock (`embedded-server.ts`, `joinEmbeddedServer`) first, looks
 * once more, and keeps it until the server is gone: a joiner holds that lock until its
 * first connection is open, so no client arrives between the last look and the stop, and
 * the next joiner finds no server (and starts one) rather than one that is shutting down.
 * A joiner holding the lock counts as a client. The keeper's own lock goes first, so that
 * the joiner starting the next server starts its keeper too. A cluster whose folder was
 * deleted under it (a test's temp folder) is stopped at once.
 */
const KEEPER = String.raw`
dir=$1; idle=$2; log=$3; join=$4; lock=$dir/evsync-keeper.lock
take() { echo $$ > "$1.$$" && ln "$1.$$" "$1" 2>/dev/null; t=$?; rm -f "$1.$$"; return $t; }
owned() { old=$(cat "$1" 2>/dev/null); [ -z "$old" ] || kill -0 "$old" 2>/dev/null; }
# A pid read from a file may have been given to another process since: look at its arguments.
runs() { case " $(ps -o args= -p "$1" 2>/dev/null) " in *" $2 "*) return 0;; esac; return 1; }
if ! take "$lock"; then
  old=$(cat "$lock" 2>/dev/null)
  if [ -z "$old" ] || runs "$old" "evsync-keeper $dir"; then exit 0; fi
  rm -f "$lock"; take "$lock" || exit 0
fi
clients() { pgrep -P "$pm" -f '^postgres: [^ ]+ [^ ]+ \[local\]' >/dev/null 2>&1; }
quiet=0; pm=
while :; do
  if [ ! -d "$dir" ]; then [ -n "$pm" ] && runs "$pm" "-D $dir" && kill -QUIT "$pm" 2>/dev/null; exit 0; fi
  pm=$(head -n 1 "$dir/postmaster.pid" 2>/dev/null)
  if [ -z "$pm" ] || ! runs "$pm" "-D $dir"; then rm -f "$lock"; exit 0; fi
  if clients; then quiet=0; else quiet=$((quiet + 1)); fi
  if [ "$quiet" -ge "$idle" ]; then
    if ! take "$join"; then
      if owned "$join"; then quiet=0; else rm -f "$join"; fi
    elif clients; then
      rm -f "$join"; quiet=0
    else
      echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) evsync: no client for $idle s: stopping the server (process $pm)" >> "$log"
      rm -f "$lock"
      kill -TERM "$pm" 2>/dev/null
      # A smart shutdown with no client is a checkpoint; should one have slipped in after
      # all, a fast shutdown after a while disconnects it (its ledger starts the next server).
      waited=0
      while runs "$pm" "-D $dir"; do
        waited=$((waited + 1))
        [ "$waited" -eq 200 ] && kill -INT "$pm" 2>/dev/null
        [ "$waited" -ge 1200 ] && break
        sleep 0.05
      done
      rm -f "$join"
      exit 0
    fi
  fi
  sleep 1
done
`;

/** Starts a keeper for the cluster (it ends at once if another one keeps it). */
export function startKeeper(paths: EmbeddedPaths, idleSeconds: number): void {
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      KEEPER,
      'evsync-keeper',
      paths.clusterDir,
      String(Math.max(1, Math.ceil(idleSeconds))),
      paths.logFile,
      paths.startLock,
    ],
    { detached: true, stdio: 'ignore' },
  );
  child.on('error', () => undefined);
  child.unref();
}
