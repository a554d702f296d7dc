import { existsSync } from 'node:fs';
import { config as loadDotenv } from 'dotenv';

/**
 * Loads `.env` from the working directory once, never overriding the real environment. Its
 * own file, apart from the zod schemas of env-config.ts, so that every start of the CLI
 * (`evsync --version` too) reads `.env` without building them.
 */
export function loadDotenvFile(path = '.env'): void {
  if (existsSync(path)) loadDotenv({ path, override: false, quiet: true });
}
