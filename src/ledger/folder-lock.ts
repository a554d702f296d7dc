import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { CODE } from '../errors/codes.js';
import { LedgerBusyError } from './ledger-error.js';

const heldInThisProcess = new Set<string>();

/**
 * An exclusive pid lock file: PGlite is one process's database, and two processes writing
 * the same folder would corrupt it. A lock left by a dead process is taken over.
 * Returns the release function.
 */
export function acquireFolderLock(lockPath: string, what: string): () => void {
  if (heldInThisProcess.has(lockPath)) throw busy(what, process.pid);
  mkdirSync(dirname(lockPath), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldInThisProcess.add(lockPath);
      return () => {
        heldInThisProcess.delete(lockPath);
        rmSync(lockPath, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = readOwner(lockPath);
      if (owner !== undefined && isAlive(owner)) throw busy(what, owner);
      rmSync(lockPath, { force: true });
    }
  }
  throw busy(what, readOwner(lockPath) ?? 0);
}

function readOwner(lockPath: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockPath, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

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

function busy(what: string, pid: number): LedgerBusyError {
  return new LedgerBusyError(
    `${what} is already open in process ${pid} (a run, resume or retry of a job, or another evsync command). ` +
      'The embedded ledger serves one process at a time: wait for it with --wait (run, resume and retry then wait for it to end and go on), ' +
      `or stop it (Ctrl-C in its terminal, or \`kill ${pid}\`); a process that was killed lets go of the ledger at once. ` +
      'To run several processes at once, set DATABASE_URL to share a PostgreSQL ledger.',
    CODE.EVSYNC_LEDGER_BUSY,
    `${what.charAt(0).toLowerCase()}${what.slice(1)} is open in process ${pid}`,
  );
}
