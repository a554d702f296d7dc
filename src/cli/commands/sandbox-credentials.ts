import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

/** The variables a sandbox's callers need, in the order `.env` lists them. */
export interface SandboxCredentials {
  EVSYNC_BASE_URL: string;
  EVSYNC_KEY_ID: string;
  EVSYNC_SIGNING_KEY: string;
}

/**
 * Lines that paste into `.env` as they are: the note on its own comment line, never after
 * a value (a comment after `KEY=value` becomes part of the value).
 */
export function credentialLines(credentials: SandboxCredentials): string[] {
  return [
    '# evsync sandbox: a throwaway key that opens nothing real',
    ...Object.entries(credentials).map(([name, value]) => `${name}=${value}`),
  ];
}

/**
 * Writes the credentials into an env file: each variable's line replaced where the file has
 * one, added at the end otherwise; every other line kept.
 */
export function writeCredentials(file: string, credentials: SandboxCredentials): void {
  const lines = existsSync(file) ? readFileSync(file, 'utf8').replace(/\n$/, '').split('\n') : [];
  const missing = new Map<string, string>(Object.entries(credentials));
  const kept = lines.map((line) => {
    const name = /^\s*(?:export\s+)?([A-Z_][A-Z0-9_]*)\s*=/.exec(line)?.[1];
    if (name === undefined || !missing.has(name)) return line;
    const value = missing.get(name)!;
    missing.delete(name);
    return `${name}=${value}`;
  });
  const added = [...missing].map(([name, value]) => `${name}=${value}`);
  const text = [...kept, ...(added.length > 0 ? [credentialLines(credentials)[0]!, ...added] : [])].join(
    '\n',
  );
  writeFileSync(file, `${text.replace(/^\n+/, '')}\n`, { mode: 0o600 });
}

/**
 * The signing key of a sandbox kept in `--state FILE`: the one in `FILE.key` when a
 * restart finds it, so that `.env` keeps working; a new random one otherwise, written there.
 */
export function stateSigningKey(stateFile: string): string {
  const keyFile = `${stateFile}.key`;
  if (existsSync(keyFile)) {
    const kept = readFileSync(keyFile, 'utf8').trim();
    if (kept !== '') return kept;
  }
  const key = randomBytes(16).toString('hex');
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  return key;
}
