import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The layers of docs/design.md "Layout": a folder of src/ imports only the folders that
// stand below it. Imports that leave src/ (node, packages, test helpers) are not checked.
const GROUND_FLOOR = ['model', 'errors', 'config', 'log', 'time', 'report', 'metrics'];
const BELOW_SYNC = [...GROUND_FLOOR, 'platform', 'sources', 'mapping', 'ledger'];

const MAY_IMPORT: Record<string, readonly string[]> = {
  model: [],
  errors: [],
  time: [],
  config: ['errors'],
  log: ['errors', 'config'],
  report: ['errors'],
  metrics: [],
  platform: GROUND_FLOOR,
  sources: GROUND_FLOOR,
  ledger: GROUND_FLOOR,
  mapping: [...GROUND_FLOOR, 'platform', 'sources'],
  sandbox: [...GROUND_FLOOR, 'platform'],
  sync: BELOW_SYNC,
  distributed: [...BELOW_SYNC, 'sync'],
  dashboard: [...BELOW_SYNC, 'sync', 'distributed'],
  cli: [...BELOW_SYNC, 'sync', 'distributed', 'dashboard', 'sandbox'],
};

const SRC = dirname(fileURLToPath(import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The top folder of src/ a path lies in, or undefined outside src/ (or for a file at its root). */
function folderOf(path: string): string | undefined {
  const parts = relative(SRC, path).split(sep);
  return parts[0] === '..' || parts.length < 2 ? undefined : parts[0];
}

/** Every relative import, re-export and dynamic import of a file, resolved. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name));
}

/** `src/a/b.ts imports src/c/d.js (a may import only: …)` for each import across the layers. */
function wrongWayImports(): string[] {
  const offenders: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    if (from === undefined) continue;
    const allowed = MAY_IMPORT[from];
    for (const target of importsOf(file)) {
      const to = folderOf(target);
      if (to === undefined || to === from) continue;
      if (allowed?.includes(to)) continue;
      const rule = allowed
        ? `${from} may import only: ${allowed.join(', ') || 'nothing of src/'}`
        : `${from} has no place in the layers`;
      offenders.push(`src/${relative(SRC, file)} imports src/${relative(SRC, target)} (${rule})`);
    }
  }
  return offenders;
}

describe('layers', () => {
  it('no folder of src/ imports a folder above it', () => {
    expect(wrongWayImports()).toEqual([]);
  });

  it('knows every folder of src/', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => !(folder in MAY_IMPORT))).toEqual([]);
  });
});
