import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** `command ARGS` in `cwd`, waited for, with what it printed and how long it took. */
function timed(command: string, args: string[], cwd: string) {
  const started = Date.now();
  const done = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 240_000, env: { ...process.env } });
  return {
    code: done.status,
    stdout: done.stdout,
    stderr: done.stderr,
    seconds: (Date.now() - started) / 1000,
  };
}

// Issue #40, item 10: in a fresh checkout, `npm ci` builds dist/ (its `prepare`), and the
// first `npx evsync` runs it: npx installs the folder and so runs `prepare` again, which
// rebuilt dist/ for half a minute. A checkout's copy with the repository's node_modules.
describe('npx evsync in a fresh checkout', () => {
  const clone = mkdtempSync(join(tmpdir(), 'evsync-clone-'));
  afterAll(() => rmSync(clone, { recursive: true, force: true }));

  it('runs the dist/ that npm ci built, without building it again', () => {
    for (const file of [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.build.json',
      'README.md',
    ])
      cpSync(join(ROOT, file), join(clone, file));
    for (const folder of ['src', 'scripts', 'docs', 'mappings', 'jobs'])
      cpSync(join(ROOT, folder), join(clone, folder), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');

    const prepare = timed('npm', ['run', 'prepare'], clone);
    expect(prepare.stderr).toBe('');
    expect(prepare.code).toBe(0);
    const built = statSync(join(clone, 'dist', 'cli', 'main.js')).mtimeMs;

    const npx = timed('npx', ['evsync', '--version'], clone);
    expect(npx.code).toBe(0);
    expect(npx.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(statSync(join(clone, 'dist', 'cli', 'main.js')).mtimeMs).toBe(built);
    // A build takes 20-30 s on this machine; npx itself about 2.
    expect(npx.seconds).toBeLessThan(12);
  }, 300_000);

  it('npm pack of a checkout without dist/ builds it, and packs no prepare script', () => {
    rmSync(join(clone, 'dist'), { recursive: true, force: true });
    const manifest = readFileSync(join(clone, 'package.json'), 'utf8');
    const pack = timed('npm', ['pack', '--pack-destination', clone], clone);
    expect(pack.code, pack.stderr).toBe(0);
    const tarball = join(
      clone,
      readdirSync(clone).find((file) => /^evsync-.+\.tgz$/.test(file))!,
    );
    const listed = timed('tar', ['-tzf', tarball], clone).stdout.split('\n');
    expect(listed).toContain('package/dist/cli/main.js');
    expect(listed).toContain('package/docs/errors.md');
    expect(listed.filter((file) => file.includes('build-stamp'))).toEqual([]);
    const packed = JSON.parse(timed('tar', ['-xzOf', tarball, 'package/package.json'], clone).stdout) as {
      scripts: Record<string, string>;
    };
    expect(packed.scripts.prepare).toBeUndefined();
    // The checkout keeps its own manifest, with prepare.
    expect(readFileSync(join(clone, 'package.json'), 'utf8')).toBe(manifest);
  }, 300_000);
});
