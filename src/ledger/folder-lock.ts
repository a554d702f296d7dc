import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { CODE } from '../errors/codes.js';
import { LedgerBusyError } from './ledger-error.js';

const heldInThisProcess = new Set<string>();

/**
 * An exclusive pid lock file: one process starts the embedded ledger's server, one keeper
 * watches it, one takes over an earlier release's PGlite folder (which two processes
 * writing would corrupt). A lock left by a dead process is taken over. Returns the release function.
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
  // Held for moments only (a start of the embedded ledger's server, a takeover of an
  // earlier release's ledger): no flag waits for it, the callers wait themselves.
  return new LedgerBusyError(
    `${what} is in the hands of process ${pid}. ` +
      `Try again when it has ended, or stop it (\`kill ${pid}\`); a process that was killed lets go at once.`,
    CODE.EVSYNC_LEDGER_BUSY,
    `${what.charAt(0).toLowerCase()}${what.slice(1)} is in the hands of process ${pid}`,
  );
}
