import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireFolderLock } from './folder-lock.js';

const dirs: string[] = [];
function lockPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'evsync-lock-'));
  dirs.push(dir);
  return join(dir, 'nested', 'ledger.lock');
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('acquireFolderLock', () => {
  it('writes our pid, refuses a second holder, and frees the lock on release', () => {
    const path = lockPath();
    const release = acquireFolderLock(path, 'The embedded ledger in X');
    expect(readFileSync(path, 'utf8')).toBe(String(process.pid));
    expect(() => acquireFolderLock(path, 'The embedded ledger in X')).toThrow(
      expect.objectContaining({
        code: 'EVSYNC_LEDGER_BUSY',
        message: expect.stringContaining(`kill ${process.pid}`) as unknown,
      }),
    );
    release();
    expect(existsSync(path)).toBe(false);
    acquireFolderLock(path, 'again')();
  });

  it('refuses a lock held by another live process', () => {
    const path = lockPath();
    acquireFolderLock(path, 'x')();
    writeFileSync(path, String(process.ppid));
    expect(() => acquireFolderLock(path, 'x')).toThrow(
      expect.objectContaining({ code: 'EVSYNC_LEDGER_BUSY' }),
    );
  });

  it('takes over a lock left by a dead process or with garbage in it', () => {
    const path = lockPath();
    acquireFolderLock(path, 'x')();
    writeFileSync(path, '999999999');
    const release = acquireFolderLock(path, 'x');
    expect(readFileSync(path, 'utf8')).toBe(String(process.pid));
    release();
    writeFileSync(path, 'not a pid');
    acquireFolderLock(path, 'x')();
  });
});
