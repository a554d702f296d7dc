import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

// `prepare` (npm install, npm ci, and `npx evsync` in a checkout, which installs the
// folder and so runs it) and `prepack`: builds dist/ only when src/ changed since the last
// build. An unconditional build made the first `npx evsync` of a fresh clone take half a
// minute. `npm pack` runs no `prepare` once prepack took it out of the manifest, so prepack
// builds first. `npm run build` always builds.

const ROOT = resolve(import.meta.dirname, '..');
// In dist/ (left out of the package by `files`): it goes with the build it dates.
const STAMP = join(ROOT, 'dist', '.build-stamp');
const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/** The newest modification time under `path`, in ms. */
function newest(path: string): number {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

// A package (no src/, dist/ built) has nothing to build: the packed-install test packs one.
if (!existsSync(join(ROOT, 'src'))) process.exit(0);
const stamp = statSync(STAMP, { throwIfNoEntry: false });
const changed = Math.max(...INPUTS.map((input) => newest(join(ROOT, input))));
if (stamp !== undefined && stamp.mtimeMs >= changed && existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) {
  process.stdout.write('dist/ is up to date with src/: not built again (`npm run build` builds it anyway)\n');
  process.exit(0);
}
// The stamp takes the time the build started: a file saved while it ran builds again.
const started = new Date();
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);
writeFileSync(STAMP, '');
utimesSync(STAMP, started, started);
