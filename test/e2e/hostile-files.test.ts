import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { EVENT_MAPPING } from './conference-fixture.js';
import { jobYaml } from './sync-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'evsync-hostile-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Nine levels of nine aliases each: 9^9 strings once expanded, a few hundred bytes on disk. */
function billionLaughs(key: string): string {
  const lines = [`${key}a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]`];
  const names = 'abcdefghi';
  for (let level = 1; level < names.length; level++) {
    const previous = names[level - 1]!;
    lines.push(`${key}${names[level]}: &${names[level]} [${Array(9).fill(`*${previous}`).join(',')}]`);
  }
  return `${lines.join('\n')}\n`;
}

describe('evsync validate: YAML built to exhaust memory', () => {
  it('refuses a job file whose aliases expand exponentially: exit 2, naming the file and why', async () => {
    const job = join(dir, 'bomb-job.yaml');
    writeFileSync(
      job,
      `${jobYaml('bomb', '  - { mapping: users, source: { csv: ./u.csv } }\n')}${billionLaughs('x')}`,
    );
    const result = await runCli('validate', job);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`job file ${job}`);
    expect(result.stderr).toMatch(/aliases \(\*name\) expand to too much data/);
  });

  it('refuses a mapping file the same way, naming the mapping file', async () => {
    const mapping = join(dir, 'bomb-map.yaml');
    writeFileSync(mapping, `${EVENT_MAPPING}${billionLaughs('x-')}`);
    writeFileSync(join(dir, 'e.csv'), 'client_id,name\ne1,One\n');
    const job = join(dir, 'bomb-mapping-job.yaml');
    writeFileSync(job, jobYaml('bombmap', '  - { mapping: ./bomb-map.yaml, source: { csv: ./e.csv } }\n'));
    const result = await runCli('validate', job);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`mapping file ${mapping}`);
    expect(result.stderr).toMatch(/aliases \(\*name\) expand to too much data/);
  });

  it('refuses nesting deep enough to overflow the parser: exit 2, naming the file', async () => {
    const job = join(dir, 'deep-job.yaml');
    writeFileSync(job, `name: deep\nsteps: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`);
    const result = await runCli('validate', job);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`job file ${job}`);
  });
});
