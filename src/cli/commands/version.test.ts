import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../main.js';
import { runCli } from '../../../test/helpers/run-cli.js';
import { packageVersion } from './version.js';

describe('evsync version', () => {
  it('is the package’s own, for `version` and `--version` alike', async () => {
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(packageVersion()).toBe(manifest.version);
    expect((await buildProgram()).version()).toBe(manifest.version);
    expect((await buildProgram(['node', 'evsync', 'version'])).commands.map((c) => c.name())).toContain(
      'version',
    );
  });

  it('loads no command for a bare `--version`, every command for help', async () => {
    const bare = await buildProgram(['node', 'evsync', '--log-json', '-V']);
    expect(bare.commands).toEqual([]);
    expect(bare.version()).toBe(packageVersion());
    expect((await buildProgram(['node', 'evsync', '--version', '--help'])).commands.length).toBeGreaterThan(
      10,
    );
  });

  it('prints JSON with --json', async () => {
    const result = await runCli('version', '--json');
    expect(JSON.parse(result.stdout)).toEqual({ evsync: packageVersion(), node: process.versions.node });
  });
});
