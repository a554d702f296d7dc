import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import {
  cliWorkspace,
  startBuiltDashboard,
  type BuiltDashboard,
  type CliWorkspace,
  type SpawnedResult,
} from '../helpers/built-cli.js';
import { waitFor } from '../helpers/wait-for.js';

const TOKEN = 'retry-one-behaviour-token-0123456789';
const HEADER = 'client_id,email,first_name,last_name\n';
// r2's e-mail is wrong (a row keyed by its client_id); the third row has no client_id,
// so it is recorded by its place and nothing can find it again by key.
const BROKEN = `${HEADER}r1,r1@example.org,Ann,One\nr2,r2.at.example.org,Bo,Two\n,r3.at.example.org,Cy,Three\n`;
const FIXED = `${HEADER}r1,r1@example.org,Ann,One\nr2,r2@example.org,Bo,Two\nr3,r3@example.org,Cy,Three\n`;

interface ReportRow {
  key: string;
  action: string;
  error_code: string | null;
}

// Issue #40, item 7: `evsync retry` and the dashboard's "Retry failed rows…" do the same
// with a run whose failed rows were fixed in the source, and neither drops a fixed row it
// cannot find again. The built CLI and dashboard, one sandbox and ledger, tests in order.
describe('retry: one behaviour in the CLI and the dashboard', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  let dashboard: BuiltDashboard;
  let runId: string;
  let dashboardRetry: string;
  const cli = (...args: string[]): Promise<SpawnedResult> => workspace.run(sandbox, args);
  const get = (path: string, accept = 'text/html'): Promise<Response> =>
    fetch(`${dashboard.base}${path}`, { headers: { authorization: `Bearer ${TOKEN}`, accept } });
  const post = (path: string, accept: string): Promise<Response> =>
    fetch(`${dashboard.base}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        accept,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'status=failed',
    });
  const report = async (run: string): Promise<ReportRow[]> =>
    JSON.parse((await cli('report', run, '--format', 'json')).stdout) as ReportRow[];

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-retry-one-');
    sandbox = await workspace.sandbox();
    workspace.write({
      'people.csv': BROKEN,
      'people.yaml': 'name: people\nsteps:\n  - mapping: users\n    source: { csv: ./people.csv }\n',
    });
    const run = await cli('run', 'people.yaml');
    expect(run.code).toBe(1);
    runId = /^Run (\S+) \(people, upsert\): completed/.exec(run.stdout)![1]!;
    dashboard = await startBuiltDashboard({
      cwd: workspace.dir,
      env: { ...workspace.envFor(sandbox), EVSYNC_DASHBOARD_TOKEN: TOKEN },
    });
  }, 120_000);
  afterAll(async () => {
    await dashboard?.stop();
    await workspace?.close();
  });

  it('the confirm page says what the CLI does: read again by client_id, the row without one named', async () => {
    const page = (await (await get(`/runs/${runId}/retry`)).text()).replaceAll('&#39;', "'");
    expect(page).toContain(`A new run linked to run ${runId}.`);
    expect(page).toContain(
      "Reads again from the job's source the 1 row(s) that failed there or in the mapping",
    );
    expect(page).toMatch(/Not found again: 1 row\(s\) .* \(user \.\/people\.csv row 3 \(line 4\)\)/);
    expect(page).toMatch(/\(evsync run \S*people\.yaml\)/);
    // The retry button, and the run that sends what a retry cannot find.
    expect(page).toContain('<button>Retry failed rows</button>');
    expect(page).toContain(`href="/runs/${runId}/rerun"`);
  });

  it('the dashboard retry sends the fixed row, and fails the one it cannot find, naming why', async () => {
    workspace.write({ 'people.csv': FIXED });
    const started = await post(`/runs/${runId}/retry`, 'application/json');
    expect(started.status).toBe(200);
    dashboardRetry = ((await started.json()) as { runId: string }).runId;
    await waitFor(async () => {
      const run = (await (await get(`/runs/${dashboardRetry}`, 'application/json')).json()) as {
        run: { status: string };
      };
      return run.run.status !== 'running';
    }, 60_000);
    expect(sandbox.state.userByClientId('r2')).toBeDefined();
    const rows = await report(dashboardRetry);
    expect(rows.map((row) => [row.key, row.action, row.error_code])).toEqual(
      expect.arrayContaining([
        ['r2', 'created', null],
        ['@./people.csv:3', 'failed', 'EVSYNC_RETRY_ROW_NOT_FOUND'],
      ]),
    );
  }, 90_000);

  it('evsync retry of the same run does the same: exit 1, the row it cannot find recorded failed', async () => {
    const retried = await cli('retry', runId);
    expect(retried.code).toBe(1);
    // r2 was sent by the dashboard's retry: unchanged now; the row without a key fails again.
    expect(retried.stdout).toMatch(/^user +0 +0 +0 +1 +0 +0 +1$/m);
    const retryId = /^Run (\S+) \(people, upsert\)/.exec(retried.stdout)![1]!;
    expect((await report(retryId)).find((row) => row.action === 'failed')).toMatchObject({
      key: '@./people.csv:3',
      error_code: 'EVSYNC_RETRY_ROW_NOT_FOUND',
    });
  }, 60_000);

  it('with only rows it cannot find, the CLI says so and exits 1; the dashboard offers the run', async () => {
    const text = await cli('retry', dashboardRetry);
    expect(text.code).toBe(1);
    // No filter was given, and the run has failed rows: only they cannot be found.
    expect(text.stdout).toContain(
      `Run ${dashboardRetry}: nothing to retry: its failed rows cannot be sent yet.`,
    );
    expect(text.stdout).toContain(
      'Not found again: 1 row(s) that failed before anything was sent have no client_id',
    );
    expect(text.stdout).toMatch(/\(evsync run \S*people\.yaml\)/);
    const json = await cli('retry', dashboardRetry, '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ retryOf: dashboardRetry, stillFailing: 0, notFound: 1 });

    const confirm = await (await get(`/runs/${dashboardRetry}/retry`)).text();
    expect(confirm).toContain(`Run ${dashboardRetry} has no failed rows that a retry can send.`);
    expect(confirm).not.toContain('<button>');
    expect(confirm).toContain(`href="/runs/${dashboardRetry}/rerun"`);
    // Asked anyway (a stale page): the answer names why and offers the run, as the CLI does.
    const refused = await post(`/runs/${dashboardRetry}/retry`, 'text/html');
    expect(refused.status).toBe(409);
    const page = await refused.text();
    expect(page).toContain('Not found again: 1 row(s)');
    expect(page).toContain(`href="/runs/${dashboardRetry}/rerun"`);
    const api = await post(`/runs/${dashboardRetry}/retry`, 'application/json');
    expect(api.status).toBe(409);
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe('EVSYNC_NOTHING_TO_RETRY');

    // The row page of that row offers the run, not a retry that cannot find it.
    const row = await (
      await get(`/runs/${dashboardRetry}/results/user/${encodeURIComponent('@./people.csv:3')}`)
    ).text();
    expect(row).not.toContain('Retry this row');
    expect(row).toContain(`href="/runs/${dashboardRetry}/rerun"`);

    // The run it points to sends the fixed row.
    const run = await cli('run', 'people.yaml');
    expect(run.code).toBe(0);
    expect(sandbox.state.userByClientId('r3')).toBeDefined();
  }, 120_000);
});
