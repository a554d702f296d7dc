import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../main.js';
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
});
