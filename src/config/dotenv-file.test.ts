import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { liveEnv } from './dotenv-file.js';

describe('liveEnv', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evsync-env-'));
  const path = join(dir, '.env');
  afterEach(() => {
    delete process.env.LIVE_ENV_REAL;
    rmSync(path, { force: true });
  });

  const write = (text: string, at: number): void => {
    writeFileSync(path, text);
    utimesSync(path, at, at);
  };

  it('sees variables the file adds or changes after the start; the real environment wins until then', () => {
    process.env.LIVE_ENV_REAL = 'real';
    write('LIVE_ENV_REAL=from-file\n', 1_000);
    const env = liveEnv(path);
    expect(env().LIVE_ENV_REAL).toBe('real');
    expect(env().LIVE_ENV_ADDED).toBeUndefined();
    write('LIVE_ENV_REAL=changed\nLIVE_ENV_ADDED=new\n', 2_000);
    expect(env().LIVE_ENV_REAL).toBe('changed');
    expect(env().LIVE_ENV_ADDED).toBe('new');
  });

  it('works without a file, and when one appears later', () => {
    const env = liveEnv(path);
    expect(env().LIVE_ENV_LATE).toBeUndefined();
    write('LIVE_ENV_LATE=here\n', 3_000);
    expect(env().LIVE_ENV_LATE).toBe('here');
  });
});
