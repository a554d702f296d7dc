import { linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { CODE } from '../errors/codes.js';
import { LedgerBusyError } from './ledger-error.js';
import { holdsLock } from './process-identity.js';

const heldInThisProcess = new Set<string>();

/**
 * An exclusive pid lock file: one process starts the embedded ledger's server, one keeper
 * watches it, one takes over an earlier release's PGlite folder (which two processes
 * writing would corrupt). A lock left by a dead process is taken over. Returns the release function.
 *
 * The lock appears whole, pid included: the pid is written to a file of this process's
 * own, which is then hard-linked to the lock's name (`link` fails if the name exists).
 * A lock made by opening the name exclusively and then writing is empty for a moment, and a
 * contender reading it then would take it for a dead holder's and delete a live lock.
 */
export function acquireFolderLock(lockPath: string, what: string): () => void {
  if (heldInThisProcess.has(lockPath)) throw busy(what, process.pid);
  mkdirSync(dirname(lockPath), { recursive: true });
  const mine = `${lockPath}.${process.pid}`;
  writeFileSync(mine, String(process.pid));
  try {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        linkSync(mine, lockPath);
        heldInThisProcess.add(lockPath);
        return () => {
          heldInThisProcess.delete(lockPath);
          if (readOwner(lockPath) === process.pid) rmSync(lockPath, { force: true });
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const owner = readOwner(lockPath);
        if (owner !== undefined ? holdsLock(owner, lockPath) : beingWritten(lockPath))
          throw busy(what, owner ?? 0);
        rmSync(lockPath, { force: true });
      }
    }
  } finally {
    rmSync(mine, { force: true });
  }
  throw busy(what, readOwner(lockPath) ?? 0);
}

/**
 * An empty lock file younger than a few seconds: made by a writer that opens it first and
 * writes its pid after (an evsync before this one): it is about to hold a pid.
 */
function beingWritten(lockPath: string): boolean {
  try {
    const { size, mtimeMs } = statSync(lockPath);
    return size === 0 && Date.now() - mtimeMs < 5_000;
  } catch {
    return false;
  }
}

function readOwner(lockPath: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockPath, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
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
