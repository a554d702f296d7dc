import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cachedDir: string | undefined;

/**
 * The package's `mappings/` folder. Walks up from this module to the package root, so it
 * is found from `src/mapping/` under tsx and from `dist/mapping/` once compiled alike.
 */
export function shippedMappingsDir(): string {
  if (cachedDir !== undefined) return cachedDir;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && isEvsyncPackage(manifest) && existsSync(join(dir, 'mappings'))) {
      cachedDir = join(dir, 'mappings');
      return cachedDir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('evsync cannot find its own mappings/ folder');
    dir = parent;
  }
}

function isEvsyncPackage(manifest: string): boolean {
  try {
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'evsync';
  } catch {
    return false;
  }
}

/** The names of the shipped mappings (`users`, `eventbrite`…), sorted. */
export function shippedMappingNames(): string[] {
  return readdirSync(shippedMappingsDir())
    .filter((file) => file.endsWith('.yaml'))
    .map((file) => file.slice(0, -'.yaml'.length))
    .sort();
}

/** A bare name (no slash, no extension) names a shipped mapping. */
export function isShippedMappingName(nameOrPath: string): boolean {
  return /^[a-z0-9][a-z0-9_-]*$/i.test(nameOrPath);
}
