import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';

/**
 * Consistent commands (issue #30 item 8), through the built CLI: `--json` on the commands
 * that print a result, `report` as CSV when piped, a table when asked, and file errors in
 * words.
 */
describe('what the run commands and report print', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  let runId: string;
  beforeAll(async () => {
    workspace = cliWorkspace('evsync-json-');
    sandbox = await workspace.sandbox();
    workspace.write({
      'users.csv': 'client_id,email,first_name,last_name\njo1,jo1@example.org,Jo,One\njobad,nope,Jo,Bad\n',
      'job.yaml': 'name: outputs\nsteps:\n  - { mapping: users, source: { csv: ./users.csv } }\n',
    });
  });
  afterAll(async () => workspace?.close());
  const evsync = (...args: string[]) => workspace.run(sandbox, args);

  it('run --json prints one JSON object with the counts and the exit code', async () => {
    const run = await evsync('run', 'job.yaml', '--json');
    expect(run.code).toBe(1);
    const outcome = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(outcome).toMatchObject({
      job: 'outputs',
      status: 'completed',
      totals: { created: 1, failed: 1 },
      exitCode: 1,
    });
    runId = outcome.runId as string;
  });

  it('report is CSV when piped, JSON with --json or --format json, a table when asked', async () => {
    const csv = await evsync('report', runId);
    expect(csv.stdout.split('\r\n')[0]).toMatch(/^run_id,conference,kind,key,action,/);
    const json = JSON.parse((await evsync('report', runId, '--json')).stdout) as Array<{ key: string }>;
    expect(json.map((row) => row.key).sort()).toEqual(['jo1', 'jobad']);
    expect((await evsync('report', runId, '--format', 'json')).stdout).toBe(
      (await evsync('report', runId, '--json')).stdout,
    );
    const table = (await evsync('report', runId, '--format', 'table')).stdout.split('\n');
    expect(table[0]).toMatch(/^kind +key +action +where +http +code +message$/);
    expect(table.find((line) => line.includes('jobad'))).toMatch(
      /^user +jobad +failed +\.\/users\.csv:3 +INVALID_EMAIL +row 2/,
    );
    const both = await evsync('report', runId, '--json', '--csv');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/ask for one format/);
  });

  it('retry and resume --json print JSON too', async () => {
    const retry = await evsync('retry', runId, '--json');
    expect(JSON.parse(retry.stdout)).toMatchObject({ retryOf: runId, nothingToRetry: expect.any(String) });
    const resume = await evsync('resume', runId, '--json');
    expect(JSON.parse(resume.stdout)).toMatchObject({ runId, status: 'completed', exitCode: 1 });
  });

  it('says a missing job file in words', async () => {
    const missing = await evsync('run', 'no-such.yaml');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no-such\.yaml does not exist: check the path/);
    expect(missing.stderr).not.toMatch(/ENOENT/);
  });
});
