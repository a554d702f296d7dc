import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';

/**
 * Is a pid still the process we mean? A pid names a process only while it lives: once it is
 * gone the pid is given to the next process that starts, soon on a machine with a small
 * `pid_max` (32,768 here) that starts a PostgreSQL backend per connection. Signalling a
 * pid read from a file (`postmaster.pid`, a lock) without checking would stop whatever
 * process has it now, and waiting on one would wait for a stranger.
 */

/** Whether a process of this machine exists (signal 0 checks without sending). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process's arguments: `/proc` on Linux, `ps` elsewhere; undefined when it is gone. */
function argumentsOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || isLinux()) return undefined;
  }
  try {
    const args = execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    return args === '' ? undefined : args.split(' ');
  } catch {
    return undefined;
  }
}

function isLinux(): boolean {
  return process.platform === 'linux';
}

/** Whether `pid` has ended and waits for its parent to reap it (Linux; elsewhere false). */
export function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/** Whether `pid` is the postmaster of the cluster in `clusterDir` (started with `-D clusterDir`). */
export function isPostmasterOf(pid: number, clusterDir: string): boolean {
  const args = argumentsOf(pid);
  if (args === undefined) return false;
  const at = args.indexOf('-D');
  return at >= 0 && args[at + 1] === clusterDir;
}

/**
 * Whether the process `pid` holds the lock file `lockPath`, which it wrote: it lives, and
 * (where the start time can be read, Linux) it started before the lock was written. A
 * process that started after is another that was given a dead holder's pid.
 */
export function holdsLock(pid: number, lockPath: string): boolean {
  if (!isAlive(pid)) return false;
  const started = startTimeMs(pid);
  if (started === undefined) return true;
  try {
    // Clock ticks round the start down to 10 ms: a second's margin either way.
    return started <= statSync(lockPath).mtimeMs + 1_000;
  } catch {
    return true;
  }
}

/** When a process started (ms since the epoch), from `/proc` on Linux. */
function startTimeMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): starttime is the 20th.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const boot = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1];
    // USER_HZ is 100 on every Linux architecture Node runs on.
    return Number.isFinite(ticks) && boot !== undefined ? Number(boot) * 1000 + ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}
