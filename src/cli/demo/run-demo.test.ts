import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors/evsync-error.js';
import { createLogger } from '../../log/logger.js';
import { defaultDemoDir, runDemo } from './run-demo.js';

describe('the demo data folder', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('is never emptied when it holds files an earlier demo did not make', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evsync-demo-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'notes.txt'), 'keep me');
    await expect(runDemo({ dataDir: dir, logger: createLogger({ level: 'silent' }) })).rejects.toThrow(
      ConfigError,
    );
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('keep me');
    expect(existsSync(join(dir, 'notes.txt'))).toBe(true);
  });

  it('lies under EVSYNC_DATA_DIR when that is set', () => {
    const before = process.env.EVSYNC_DATA_DIR;
    try {
      process.env.EVSYNC_DATA_DIR = '/srv/evsync';
      expect(defaultDemoDir()).toBe(join('/srv/evsync', 'demo'));
      delete process.env.EVSYNC_DATA_DIR;
      expect(defaultDemoDir()).toBe(join('.evsync', 'demo'));
    } finally {
      if (before === undefined) delete process.env.EVSYNC_DATA_DIR;
      else process.env.EVSYNC_DATA_DIR = before;
    }
  });
});
