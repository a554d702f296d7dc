import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli as evsync } from '../../../test/helpers/run-cli.js';

// Every command that maps rows checks EVSYNC_VENDOR as the real run does, before it opens
// a ledger or reads a source: none of these needs a platform or a database to refuse.
describe('EVSYNC_VENDOR is checked alike by run, plan, run --dry-run and validate', () => {
  let dir: string;
  let job: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'evsync-vendor-env-'));
    writeFileSync(join(dir, 'u.csv'), 'client_id,email,first_name,last_name\nu1,u1@example.org,A,B\n');
    job = join(dir, 'v.yaml');
    writeFileSync(job, 'name: v\nsteps:\n  - { mapping: users, source: { csv: ./u.csv } }\n');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const commands = [
    ['run', '<job>'],
    ['plan', '<job>'],
    ['run', '<job>', '--dry-run'],
    ['validate', '<job>'],
  ];

  for (const value of ['Zerista', '']) {
    it(`refuses EVSYNC_VENDOR=${JSON.stringify(value)} with one message and exit code 2`, async () => {
      // Valid platform settings, so that the real run's message has only the vendor line.
      vi.stubEnv('EVSYNC_BASE_URL', 'http://127.0.0.1:9');
      vi.stubEnv('EVSYNC_KEY_ID', '1');
      vi.stubEnv('EVSYNC_SIGNING_KEY', 'not-used');
      vi.stubEnv('EVSYNC_DATA_DIR', join(dir, 'never-opened'));
      vi.stubEnv('EVSYNC_VENDOR', value);
      const answers = [];
      for (const command of commands)
        answers.push(await evsync(...command.map((a) => (a === '<job>' ? job : a))));
      for (const answer of answers) {
        expect(answer.code).toBe(2);
        expect(answer.stdout).toBe('');
      }
      expect(answers[0]?.stderr).toMatch(/EVSYNC_VENDOR: must be a lower-case word such as "svc"/);
      expect(new Set(answers.map((a) => a.stderr)).size).toBe(1);
    });
  }
});

describe('evsync run --dry-run --report', () => {
  it('is refused as a usage error (exit 2) naming both options, before anything is read', async () => {
    const answer = await evsync(
      'run',
      join(tmpdir(), 'no-such-job.yaml'),
      '--dry-run',
      '--report',
      'out.csv',
    );
    expect(answer.code).toBe(2);
    expect(answer.stderr).toMatch(
      /--report writes the results of a run, and --dry-run sends and records nothing/,
    );
    expect(answer.stderr).toMatch(/evsync plan JOB --json > FILE/);
  });
});
