import { spawn } from 'node:child_process';
import type { EmbeddedPaths } from './embedded-paths.js';

/**
 * The embedded ledger's keeper: started beside the server by the client that finds none
 * (`embedded-server.ts`), it stops the server once no client has been connected for the
 * idle time, then ends. It holds no data: killed, it loses nothing, and the next client
 * starts another. A POSIX shell loop rather than a Node process: it costs about 3 MB where
 * Node with a driver cost 55 MB, a fifth of the demo's whole budget (docs/ledger.md).
 *
 * One keeper per cluster: its lock is a pid file made with `noclobber` (atomic); a lock
 * whose process is gone is taken over. A client is a child of the server whose title is
 * `postgres: USER DATABASE [local] …` (PostgreSQL sets it for every client backend). The
 * stop is a smart shutdown: a client that joined meanwhile finishes its work, newcomers are
 * refused and start the next server once this one is gone. A cluster whose folder was
 * deleted under it (a test's temp folder) is stopped at once.
 */
const KEEPER = String.raw`
dir=$1; idle=$2; log=$3; lock=$dir/evsync-keeper.lock
take() { ( set -C; echo $$ > "$lock" ) 2>/dev/null; }
if ! take; then
  old=$(cat "$lock" 2>/dev/null)
  if [ -n "$old" ] && kill -0 "$old" 2>/dev/null; then exit 0; fi
  rm -f "$lock"; take || exit 0
fi
quiet=0; pm=
while :; do
  if [ ! -d "$dir" ]; then [ -n "$pm" ] && kill -QUIT "$pm" 2>/dev/null; exit 0; fi
  pm=$(head -n 1 "$dir/postmaster.pid" 2>/dev/null)
  if [ -z "$pm" ] || ! kill -0 "$pm" 2>/dev/null; then exit 0; fi
  if pgrep -P "$pm" -f '^postgres: [^ ]+ [^ ]+ \[local\]' >/dev/null 2>&1; then quiet=0; else quiet=$((quiet + 1)); fi
  if [ "$quiet" -ge "$idle" ]; then
    echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) evsync: no client for $idle s: stopping the server (process $pm)" >> "$log"
    kill -TERM "$pm" 2>/dev/null
    exit 0
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
    ],
    { detached: true, stdio: 'ignore' },
  );
  child.on('error', () => undefined);
  child.unref();
}
