import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { config } from 'dotenv';
import { afterEach, describe, expect, it } from 'vitest';
import { keyShapeHint } from './ping.js';
import { credentialLines, stateSigningKey, writeCredentials } from './sandbox-credentials.js';

const credentials = {
  EVSYNC_BASE_URL: 'http://127.0.0.1:8080',
  EVSYNC_KEY_ID: '1',
  EVSYNC_SIGNING_KEY: 'd22d60ccb0b34178da8c1ff2bd0c28d4',
};

describe('sandbox credentials', () => {
  const dirs: string[] = [];
  const dir = (): string => {
    const made = mkdtempSync(join(tmpdir(), 'evsync-creds-'));
    dirs.push(made);
    return made;
  };
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('prints lines that paste into .env as they are: dotenv reads the very key back', () => {
    const file = join(dir(), '.env');
    writeFileSync(file, credentialLines(credentials).join('\n'));
    expect(config({ path: file, processEnv: {}, quiet: true }).parsed).toEqual(credentials);
  });

  it('writes them into an env file, replacing its lines and keeping the rest', () => {
    const file = join(dir(), '.env');
    writeFileSync(
      file,
      'DATABASE_URL=postgres://x\nEVSYNC_SIGNING_KEY=old   (a sandbox key: it opens nothing real)\n',
    );
    writeCredentials(file, credentials);
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('DATABASE_URL=postgres://x\nEVSYNC_SIGNING_KEY=d22d')).toBe(true);
    expect(config({ path: file, processEnv: {}, quiet: true }).parsed).toEqual({
      DATABASE_URL: 'postgres://x',
      ...credentials,
    });
  });

  it('keeps a --state sandbox’s key across restarts', () => {
    const state = join(dir(), 'sandbox.json');
    const first = stateSigningKey(state);
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    expect(stateSigningKey(state)).toBe(first);
  });

  it('ping names a key that took a comment, spaces or quotes, never the key', () => {
    expect(keyShapeHint('abc   (a sandbox key: it opens nothing real)')).toContain(
      'a comment pasted after it',
    );
    expect(keyShapeHint(' abc ')).toContain('spaces');
    expect(keyShapeHint('"abc"')).toContain('quote');
    expect(keyShapeHint('abc')).toBe('');
    expect(keyShapeHint('abc   (a sandbox key')).not.toContain('abc');
  });
});
