import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import {
  cliWorkspace,
  startBuiltDashboard,
  type CliWorkspace,
  type SpawnedResult,
} from '../helpers/built-cli.js';
import { sandboxCounters } from './cli-in-process.js';
import { sentBesidesChecks } from '../helpers/sent-calls.js';

const HEADER = 'client_id,email,first_name,last_name\n';
const PEOPLE = `${HEADER}p1,p1@example.org,Ann,One\np2,zoe.at.example.org,Zoe,Quill\np3,p3@example.org,Cy,Three\n`;
const TOKEN = 'rows-by-person-token-0123456789';

function job(name: string, csv: string, minRows?: string): string {
  return (
    `name: ${name}\nsteps:\n  - mapping: users\n    source: { csv: ./${csv} }\n` +
    (minRows === undefined ? '' : `    min_rows: ${minRows}\n`)
  );
}

// Issue #26, items 4 and 5, as a user meets them: the built CLI against a sandbox, one
// embedded ledger for the whole file, the tests in order.
describe('rows found by the person, empty sources said (built CLI)', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  let runId: string;
  const cli = (...args: string[]): Promise<SpawnedResult> => workspace.run(sandbox, args);

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-rows-by-person-');
    sandbox = await workspace.sandbox();
    workspace.write({ 'people.csv': PEOPLE, 'people.yaml': job('people', 'people.csv') });
    const run = await cli('run', 'people.yaml');
    expect(run.code).toBe(1);
    runId = /^Run (\S+) \(people, upsert\): completed/.exec(run.stdout)![1]!;
  }, 120_000);
  afterAll(async () => {
    await workspace?.close();
  });

  it('report finds the failed row by its client_id and name; its place stays in the origin', async () => {
    // By e-mail too: the dashboard's test below asks for all three, each spawn costs a ledger open.
    for (const text of ['p2', 'zoe quill']) {
      const found = await cli('report', runId, '--search', text, '--format', 'json');
      expect(found.code).toBe(0);
      const rows = JSON.parse(found.stdout) as Array<Record<string, unknown>>;
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        key: 'p2',
        action: 'failed',
        error_code: 'INVALID_EMAIL',
        source: './people.csv',
        row: 2,
        name: 'Zoe Quill',
        email: 'zoe.at.example.org',
      });
    }
  }, 60_000);

  it('retry --client-id sends the row once it is fixed in the source', async () => {
    const before = sentBesidesChecks(await sandboxCounters(sandbox));
    const still = await cli('retry', runId, '--client-id', 'p2');
    expect(still.code).toBe(1);
    expect(still.stdout).toContain(
      'Not sent: user p2 still fails: row 2 (line 3), email: "zoe.at.example.org"',
    );
    expect(sentBesidesChecks(await sandboxCounters(sandbox))).toBe(before);

    workspace.write({ 'people.csv': PEOPLE.replace('zoe.at.example.org', 'zoe@example.org') });
    const fixed = await cli('retry', runId, '--client-id', 'p2');
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toMatch(/^user +1 +0 +0 +0 +0 +0 +0$/m);
    expect(sandbox.state.userByClientId('p2')).toBeDefined();
    expect(sentBesidesChecks(await sandboxCounters(sandbox))).toBe(before + 1);
  }, 60_000);

  it('a retry that sends a fixed row records the one still failing, and exits 1', async () => {
    const pair = `${HEADER}q1,q1.at.example.org,Ann,One\nq2,q2.at.example.org,Bo,Two\n`;
    workspace.write({ 'pair.csv': pair, 'pair.yaml': job('pair', 'pair.csv') });
    const first = await cli('run', 'pair.yaml');
    expect(first.code).toBe(1);
    const failedRun = /^Run (\S+) \(pair, upsert\)/.exec(first.stdout)![1]!;

    workspace.write({ 'pair.csv': pair.replace('q1.at.example.org', 'q1@example.org') });
    const retried = await cli('retry', failedRun);
    expect(retried.code).toBe(1);
    expect(retried.stdout).toMatch(/^user +1 +0 +0 +0 +0 +0 +1$/m);
    const retryRun = /^Run (\S+) \(pair, upsert\)/.exec(retried.stdout)![1]!;
    const failed = await cli('report', retryRun, '--status', 'failed', '--format', 'json');
    expect(JSON.parse(failed.stdout)).toMatchObject([
      {
        key: 'q2',
        action: 'failed',
        message: 'row 2 (line 3), email: "q2.at.example.org" is not an e-mail address',
      },
    ]);
    expect(sandbox.state.userByClientId('q1')).toBeDefined();
  }, 60_000);

  it('a header-only CSV warns naming its file; min_rows stops plan and run before anything is sent, --force goes on', async () => {
    workspace.write({ 'empty.csv': HEADER, 'empty.yaml': job('empty', 'empty.csv', '2') });
    const before = sentBesidesChecks(await sandboxCounters(sandbox));
    const stopped =
      'Step 1 (CSV file ./empty.csv) yielded 0 rows, fewer than its min_rows 2. Nothing was sent.';
    const plan = await cli('plan', 'empty.yaml');
    expect(plan.code).toBe(3);
    expect(plan.stderr).toContain(stopped);
    const run = await cli('run', 'empty.yaml');
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(stopped);
    const runs = JSON.parse((await cli('runs', '--json')).stdout) as Array<{ jobName: string }>;
    expect(runs.filter((one) => one.jobName === 'empty')).toHaveLength(0);

    const forced = await cli('run', 'empty.yaml', '--force');
    expect(forced.code).toBe(0);
    expect(forced.stderr).toContain('step 1: CSV file ./empty.csv yielded no rows');
    expect(sentBesidesChecks(await sandboxCounters(sandbox))).toBe(before);
  }, 60_000);

  it('a percentage min_rows compares with the step’s rows in the last completed run', async () => {
    // The first run read 3 rows of people.csv (the retry reads no source: it does not count).
    workspace.write({
      'people.yaml': job('people', 'people.csv', '80%'),
      'people.csv': `${HEADER}p1,p1@example.org,Ann,One\n`,
    });
    const before = sentBesidesChecks(await sandboxCounters(sandbox));
    const stopped = new RegExp(
      `Step 1 \\(CSV file \\./people\\.csv\\) yielded 1 row, fewer than its min_rows 80% of the 3 rows it had in the last completed run, ${runId} \\(3\\)\\. Nothing was sent\\.`,
    );
    const plan = await cli('plan', 'people.yaml');
    expect(plan.code).toBe(3);
    expect(plan.stderr).toMatch(stopped);
    const run = await cli('run', 'people.yaml');
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(stopped);
    expect(sentBesidesChecks(await sandboxCounters(sandbox))).toBe(before);
    // Three rows again pass, and that run's count is the next one's measure.
    workspace.write({ 'people.csv': PEOPLE.replace('zoe.at.example.org', 'zoe@example.org') });
    expect((await cli('run', 'people.yaml')).code).toBe(0);
  }, 90_000);

  it('the dashboard’s search finds the failed row by client_id, e-mail and name', async () => {
    const dashboard = await startBuiltDashboard({
      cwd: workspace.dir,
      env: { EVSYNC_DASHBOARD_TOKEN: TOKEN, EVSYNC_DATA_DIR: `${workspace.dir}/data`, LOG_LEVEL: 'info' },
    });
    try {
      const { base } = dashboard;
      for (const q of ['p2', 'zoe.at', 'Zoe Quill']) {
        const response = await fetch(`${base}/runs/${runId}/results?q=${encodeURIComponent(q)}`, {
          headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
        });
        expect(response.status).toBe(200);
        const page = (await response.json()) as { results: Array<{ key: string; action: string }> };
        expect(page.results.map((result) => [result.key, result.action])).toEqual([['p2', 'failed']]);
      }
    } finally {
      await dashboard.stop();
    }
  }, 90_000);
});
