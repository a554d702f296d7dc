import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBuiltCli } from '../helpers/built-cli.js';

// Issue #40, item 10: a key a job file does not know is named with the key it was
// probably meant to be, as `evsync validate` reports it through the built CLI.
describe('unknown keys of a job file get a "did you mean"', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evsync-did-you-mean-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('at the top, in rate:, and in a step', async () => {
    writeFileSync(join(dir, 'users.csv'), 'client_id,email,first_name,last_name\n');
    writeFileSync(
      join(dir, 'job.yaml'),
      'name: typos\nrate: { per_secnd: 5 }\nstep:\n  - mapping: users\n    source: { csv: ./users.csv }\n',
    );
    const top = await runBuiltCli(['validate', 'job.yaml'], { cwd: dir });
    expect(top.code).toBe(2);
    expect(top.stderr).toContain('job.yaml:1: (top level): Unrecognized key: "step" (did you mean "steps"?)');
    expect(top.stderr).toContain(
      'job.yaml:2: rate: Unrecognized key: "per_secnd" (did you mean "per_second"?)',
    );

    writeFileSync(
      join(dir, 'job.yaml'),
      'name: typos\nsteps:\n  - mapping: users\n    source: { csv: ./users.csv }\n    min_row: 3\n    colour: red\n',
    );
    const step = await runBuiltCli(['validate', 'job.yaml'], { cwd: dir });
    expect(step.code).toBe(2);
    // A key like no known one is named as it was.
    expect(step.stderr).toContain(
      'steps.0: Unrecognized keys: "min_row" (did you mean "min_rows"?), "colour"',
    );
  });
});
