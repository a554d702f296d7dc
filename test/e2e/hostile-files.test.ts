import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { startSandbox } from '../../src/sandbox/start-sandbox.js';
import { runCli } from '../helpers/run-cli.js';
import { EVENT_MAPPING } from './conference-fixture.js';
import { jobYaml } from './sync-harness.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';
import { BUILT_CLI } from '../helpers/built-cli.js';

const execFileAsync = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'evsync-hostile-files-'));
afterAll(() => removeWorkspace(dir));

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

describe('evsync run --report over thousands of rows', () => {
  it('writes the report without leaking an error listener per full buffer', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    vi.stubEnv('EVSYNC_BASE_URL', 'http://127.0.0.1:9');
    vi.stubEnv('EVSYNC_KEY_ID', '1');
    vi.stubEnv('EVSYNC_SIGNING_KEY', 'k'.repeat(32));
    vi.stubEnv('EVSYNC_DATA_DIR', join(dir, 'report-data'));
    vi.stubEnv('DATABASE_URL', '');
    vi.stubEnv('LOG_LEVEL', 'silent');
    try {
      // Rows the mapping refuses: every one has a result, and nothing is sent.
      const rows = Array.from({ length: 2000 }, (_, i) => `r${i},not-an-email-${i},First ${i},Last ${i}`);
      writeFileSync(join(dir, 'many.csv'), `client_id,email,first_name,last_name\n${rows.join('\n')}\n`);
      const job = join(dir, 'many.yaml');
      writeFileSync(job, jobYaml('many', '  - { mapping: users, source: { csv: ./many.csv } }\n'));
      const report = join(dir, 'many-report.csv');
      const result = await runCli('run', job, '--report', report);
      expect(result.stdout).toContain(`Report: 2000 rows in ${report}`);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => `${warning.name}: ${warning.message}`)).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      vi.unstubAllEnvs();
    }
  });
});

describe('evsync run and resume: JSON log lines', () => {
  it('carry each key once (pino writes a bound key and a field of the same name twice)', async () => {
    writeFileSync(join(dir, 'log.csv'), 'client_id,email,first_name,last_name\nl1,nope,A,B\n');
    const job = join(dir, 'log.yaml');
    writeFileSync(job, jobYaml('logjob', '  - { mapping: users, source: { csv: ./log.csv } }\n'));
    const ROOT = resolve(import.meta.dirname, '../..');
    // A platform that answers: a run with nothing answered checks it before "completed"
    // (issue #40 item 3), and an unreachable one would abort the run.
    const sandbox = await startSandbox({ signingKey: 'k'.repeat(32) });
    onTestFinished(() => sandbox.close());
    const env = {
      ...process.env,
      EVSYNC_BASE_URL: sandbox.url,
      EVSYNC_KEY_ID: sandbox.keyId,
      EVSYNC_SIGNING_KEY: sandbox.signingKey,
      EVSYNC_DATA_DIR: join(dir, 'log-data'),
      DATABASE_URL: '',
      LOG_LEVEL: 'info',
    };
    const evsync = (...args: string[]): Promise<{ stdout: string; stderr: string }> =>
      execFileAsync(process.execPath, [BUILT_CLI, ...args], {
        cwd: ROOT,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      }).catch((error: { stdout: string; stderr: string; code: number }) => {
        expect(error.code).toBe(1); // the one row is invalid
        return error;
      });
    const run = await evsync('run', job);
    const runId = /^Run (\S+) /m.exec(run.stdout)![1]!;
    const resume = await evsync('resume', runId);
    const lines = `${run.stderr}\n${resume.stderr}`.split('\n').filter((line) => line.startsWith('{'));
    expect(lines.some((line) => line.includes('"msg":"run planned"'))).toBe(true);
    expect(lines.some((line) => line.includes('"msg":"run is completed: nothing to resume"'))).toBe(true);
    for (const line of lines) {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      // Top-level keys only: a duplicate collapses in JSON.parse, so the raw line says more.
      for (const key of ['job', 'runId']) {
        if (!(key in parsed)) continue;
        expect(line.split(`"${key}":`).length - 1, line).toBe(1);
      }
    }
  });
});
