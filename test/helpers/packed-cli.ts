import { spawnSync } from 'node:child_process';
import { cpSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** evsync as `npm install -g` leaves it: a prefix with `bin/evsync`, removed by `close`. */
export interface InstalledCli {
  prefix: string;
  bin: string;
  /** The package's folder under the prefix. */
  home: string;
  /** What `npm install --global` printed on standard error (its warnings). */
  installWarnings: string;
  close(): void;
}

/**
 * `npm pack` of this checkout, then `npm install -g` of the tarball into a new prefix.
 * Packed from a copy holding the package's files, with the `dist/` the suite built: a
 * second build would rewrite `dist/` under the tests running it. The pack scripts
 * (`prepack`: the shrinkwrap, the manifest without `prepare`) run as they do for a release;
 * only `prepare` (the build) is left out. The install takes the dependencies from npm's cache when it has them.
 */
export function packAndInstallGlobally(): InstalledCli {
  const dir = mkdtempSync(join(tmpdir(), 'evsync-packed-'));
  const stage = join(dir, 'stage');
  mkdirSync(stage);
  for (const file of ['package.json', 'package-lock.json', 'README.md'])
    copyFileSync(join(ROOT, file), join(stage, file));
  for (const folder of ['dist', 'docs', 'mappings', 'jobs', 'scripts'])
    cpSync(join(ROOT, folder), join(stage, folder), { recursive: true });
  // The pack scripts run with the checkout's tools (tsx), as they do in a checkout.
  const PATH = [join(ROOT, 'node_modules', '.bin'), process.env.PATH].join(delimiter);
  const npm = (args: string[], cwd: string): { stdout: string; stderr: string } => {
    const done = spawnSync('npm', args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
      env: { ...process.env, PATH },
    });
    if (done.status !== 0) throw new Error(`npm ${args.join(' ')} failed: ${done.stderr}`);
    return done;
  };
  npm(['run', '--silent', 'prepack'], stage);
  npm(['pack', '--ignore-scripts', '--pack-destination', dir], stage);
  const tarball = readdirSync(dir).find((file) => /^evsync-.+\.tgz$/.test(file))!;
  const prefix = join(dir, 'prefix');
  const install = npm(
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      join(dir, tarball),
    ],
    dir,
  );
  return {
    prefix,
    bin: join(prefix, 'bin', 'evsync'),
    home: join(prefix, 'lib', 'node_modules', 'evsync'),
    installWarnings: install.stderr,
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
