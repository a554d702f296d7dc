import { existsSync, readFileSync, statSync } from 'node:fs';
import { config as loadDotenv, parse } from 'dotenv';

/**
 * Loads `.env` from the working directory once, never overriding the real environment. Its
 * own file, apart from the zod schemas of env-config.ts, so that every start of the CLI
 * (`evsync --version` too) reads `.env` without building them.
 */
export function loadDotenvFile(path = '.env'): void {
  if (existsSync(path)) loadDotenv({ path, override: false, quiet: true });
}

/**
 * The environment as it is now, `.env` included: a long-lived process (`evsync worker`) sees
 * credentials added to or changed in the file since it started, without a restart. The real
 * environment still wins for a variable the file has not changed since the start.
 */
export function liveEnv(path = '.env'): () => NodeJS.ProcessEnv {
  const read = (): Record<string, string> => (existsSync(path) ? parse(readFileSync(path)) : {});
  const mtime = (): number => (existsSync(path) ? statSync(path).mtimeMs : 0);
  const atStart = read();
  let seen = mtime();
  let overlay: NodeJS.ProcessEnv = {};
  return () => {
    const now = mtime();
    if (now !== seen) {
      seen = now;
      const file = read();
      overlay = {};
      for (const [name, value] of Object.entries(file)) if (atStart[name] !== value) overlay[name] = value;
      // Gone from the file, and its value came from it: gone here too.
      for (const name of Object.keys(atStart))
        if (!(name in file) && process.env[name] === atStart[name]) overlay[name] = undefined;
    }
    return { ...process.env, ...overlay };
  };
}
