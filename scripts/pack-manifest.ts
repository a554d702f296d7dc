import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// `prepack` and `postpack`: the package as published. It ships the lockfile as
// npm-shrinkwrap.json (installs get the tested versions), and a package.json without
// `prepare`: that script builds a checkout, a tarball has dist/ built, and npm warns
// about every install script of a package installed globally ("not yet covered by
// allowScripts"). postpack puts the checkout's files back.

const ROOT = process.cwd();
const MANIFEST = join(ROOT, 'package.json');
const KEPT = join(ROOT, '.package.json.before-pack');
const SHRINKWRAP = join(ROOT, 'npm-shrinkwrap.json');

interface Manifest {
  scripts?: Record<string, string>;
}

if (process.argv[2] === 'pack') {
  copyFileSync(join(ROOT, 'package-lock.json'), SHRINKWRAP);
  const text = readFileSync(MANIFEST, 'utf8');
  const manifest = JSON.parse(text) as Manifest;
  if (manifest.scripts?.prepare !== undefined) {
    if (!existsSync(KEPT)) writeFileSync(KEPT, text);
    delete manifest.scripts.prepare;
    writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
  }
} else if (process.argv[2] === 'unpack') {
  rmSync(SHRINKWRAP, { force: true });
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
} else {
  process.stderr.write('usage: tsx scripts/pack-manifest.ts pack|unpack\n');
  process.exit(2);
}
