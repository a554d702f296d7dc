import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuiltCli } from '../helpers/built-cli.js';
import { packAndInstallGlobally, type InstalledCli } from '../helpers/packed-cli.js';

/**
 * Installing beyond the checkout (issue #30 item 10): the package `npm pack` makes installs
 * globally and runs from any folder, with the shipped mappings.
 */
describe('evsync packed and installed globally', () => {
  let installed: InstalledCli;
  let elsewhere: string;
  beforeAll(() => {
    installed = packAndInstallGlobally();
    elsewhere = mkdtempSync(join(tmpdir(), 'evsync-elsewhere-'));
  }, 180_000);
  afterAll(() => {
    installed?.close();
    if (elsewhere) rmSync(elsewhere, { recursive: true, force: true });
  });
  const evsync = (...args: string[]) => runBuiltCli(args, { cwd: elsewhere, bin: installed.bin });

  it('ships the shrinkwrap and the docs it cites, no test or source files, no install script', () => {
    expect(existsSync(join(installed.home, 'npm-shrinkwrap.json'))).toBe(true);
    // The README and messages send readers to docs/…: they are in the package.
    expect(existsSync(join(installed.home, 'docs', 'errors.md'))).toBe(true);
    expect(existsSync(join(installed.home, 'docs', 'dashboard.md'))).toBe(true);
    // `prepare` builds a checkout; the package has dist/ built, and npm warned about it.
    const manifest = JSON.parse(readFileSync(join(installed.home, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts.prepare).toBeUndefined();
    expect(installed.installWarnings).not.toMatch(/evsync@[^ ]+ \(prepare/);
    expect(existsSync(join(installed.home, 'src'))).toBe(false);
    expect(existsSync(join(installed.home, 'node_modules', 'vitest'))).toBe(false);
  });

  it('says its version', async () => {
    const result = await evsync('--version');
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(result.code).toBe(0);
  });

  it('validates a file of another folder with a shipped mapping, by name', async () => {
    writeFileSync(
      join(elsewhere, 'tickets.csv'),
      'Attendee #,Email,First Name,Last Name,Attendee Status\n101,ann@example.org,Ann,Lee,Attending\n',
    );
    writeFileSync(
      join(elsewhere, 'job.yaml'),
      'name: elsewhere\nsteps:\n  - { mapping: eventbrite, source: { csv: ./tickets.csv } }\n',
    );
    const bySource = await evsync('validate', '--source', 'tickets.csv', '--mapping', 'eventbrite');
    expect(bySource.code).toBe(0);
    expect(bySource.stdout).toContain(join(installed.home, 'mappings', 'eventbrite.yaml'));
    const byJob = await evsync('validate', 'job.yaml');
    expect(byJob.stderr).not.toMatch(/"level":50/);
    expect(byJob.code).toBe(0);
  });
});
