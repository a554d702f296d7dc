import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { UNCHANGED_SEQ_BASE } from '../../src/ledger/unchanged-sql.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import {
  cliWorkspace,
  startBuiltDashboard,
  type CliWorkspace,
  type SpawnedResult,
} from '../helpers/built-cli.js';
import { sandboxCounters } from './cli-in-process.js';

const HEADER = 'client_id,email,first_name,last_name\n';
const row = (id: string, email: string, last = 'Person'): string => `${id},${email},Name${id},${last}\n`;
const PEOPLE =
  HEADER +
  row('n1', 'n1@example.org') +
  row('n2', 'n2@example.org') +
  row('n3', 'n3@example.org') +
  row('n4', 'n4.at.example.org');
const JOB = 'name: nightly\nsteps:\n  - mapping: users\n    source: { csv: ./people.csv }\n';
const TOKEN = 'nightly-unchanged-token-0123456789';

const runIdOf = (result: SpawnedResult): string =>
  /^Run (\S+) \(nightly, upsert\)/m.exec(result.stdout)?.[1] ??
  `no run id in: ${result.stdout}${result.stderr}`;

// Issue #28 item 1 as a user meets it: a nightly run stores its unchanged rows as keys
// (docs/ledger.md, "What a run stores"); report, the dashboard's row history, retry and
// resume read them as before. The built CLI, one embedded ledger, the tests in order.
describe('a nightly run that changed nothing (built CLI)', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  let first: string;
  let nightly: string;
  const cli = (...args: string[]): Promise<SpawnedResult> => workspace.run(sandbox, args);

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-nightly-unchanged-');
    sandbox = await workspace.sandbox();
    workspace.write({ 'people.csv': PEOPLE, 'nightly.yaml': JOB });
    const run = await cli('run', 'nightly.yaml');
    expect(run.code, run.stderr).toBe(1);
    first = runIdOf(run);
    const before = (await sandboxCounters(sandbox)).total;
    const again = await cli('run', 'nightly.yaml');
    expect(again.code).toBe(1);
    expect(again.stdout).toMatch(/^user +0 +0 +0 +3 +0 +0 +1$/m);
    // Nothing to send, but one signed read: the platform is checked before "completed" (issue #40 item 3).
    const after = await sandboxCounters(sandbox);
    expect(after.total).toBe(before + 1);
    expect(after.calls['GET /signature_test']).toBe(1);
    nightly = runIdOf(again);
  }, 120_000);
  afterAll(async () => {
    await workspace?.close();
  });

  it('report --status unchanged lists each unchanged key with its name, e-mail and platform id', async () => {
    const report = await cli('report', nightly, '--status', 'unchanged', '--format', 'json');
    expect(report.code, report.stderr).toBe(0);
    const rows = JSON.parse(report.stdout) as Array<Record<string, unknown>>;
    expect(rows.map((r) => r.key)).toEqual(['n1', 'n2', 'n3']);
    expect(rows[0]).toMatchObject({
      run_id: nightly,
      action: 'unchanged',
      name: 'Namen1 Person',
      email: 'n1@example.org',
      platform_id: sandbox.state.userByClientId('n1')!.id,
    });
    // Every row of the run: what failed first, then the unchanged keys.
    const all = JSON.parse((await cli('report', nightly, '--format', 'json')).stdout) as Array<{
      key: string;
    }>;
    expect(all.map((r) => r.key)).toEqual(['n4', 'n1', 'n2', 'n3']);
    // Stored as keys: one result row (the invalid one) and no planned intent.
    const ledger = await openLedger({ dataDir: join(workspace.dir, 'data'), databaseUrl: '' });
    try {
      const recorded = (await ledger.results(nightly)).filter((r) => r.seq < UNCHANGED_SEQ_BASE);
      expect(recorded.map((r) => [r.key, r.action])).toEqual([['n4', 'failed']]);
      expect(await ledger.countPlanned(nightly)).toBe(0);
      expect(await ledger.resultCounts(nightly)).toEqual({ user: { unchanged: 3, failed: 1 } });
    } finally {
      await ledger.close();
    }
  }, 60_000);

  it('the dashboard shows the unchanged row and its history across both runs', async () => {
    const dashboard = await startBuiltDashboard({
      cwd: workspace.dir,
      env: { EVSYNC_DASHBOARD_TOKEN: TOKEN, EVSYNC_DATA_DIR: `${workspace.dir}/data`, LOG_LEVEL: 'info' },
    });
    try {
      const headers = { authorization: `Bearer ${TOKEN}` };
      const page = await fetch(`${dashboard.base}/runs/${nightly}/results/user/n2`, { headers });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('unchanged');
      expect(html).toContain(first);
      expect(html).toContain(nightly);
      const list = await fetch(`${dashboard.base}/runs/${nightly}/results?status=unchanged`, {
        headers: { ...headers, accept: 'application/json' },
      });
      expect(list.status).toBe(200);
      const body = (await list.json()) as { results: Array<{ key: string; action: string }> };
      expect(body.results.map((r) => [r.key, r.action])).toEqual([
        ['n1', 'unchanged'],
        ['n2', 'unchanged'],
        ['n3', 'unchanged'],
      ]);
    } finally {
      await dashboard.stop();
    }
  }, 90_000);

  it('retry of the nightly run sends its failed row once fixed, and nothing else', async () => {
    workspace.write({ 'people.csv': PEOPLE.replace('n4.at.example.org', 'n4@example.org') });
    const before = (await sandboxCounters(sandbox)).total;
    const retried = await cli('retry', nightly);
    expect(retried.code, retried.stdout + retried.stderr).toBe(0);
    expect(retried.stdout).toMatch(/^user +1 +0 +0 +0 +0 +0 +0$/m);
    expect((await sandboxCounters(sandbox)).total).toBe(before + 1);
    expect(sandbox.state.userByClientId('n4')).toBeDefined();
  }, 60_000);

  it('resume of a nightly run stopped by a refused key sends the changed row; unchanged keys stay keys', async () => {
    workspace.write({
      'people.csv': PEOPLE.replace('n4.at.example.org', 'n4@example.org').replace(
        'n1,n1@example.org,Namen1,Person',
        'n1,n1@example.org,Namen1,Renamed',
      ),
    });
    const refused = await workspace.run(sandbox, ['run', 'nightly.yaml'], {
      EVSYNC_SIGNING_KEY: 'wrong-key',
    });
    expect(refused.code).toBe(3);
    const stopped = runIdOf(refused);
    const resumed = await cli('resume', stopped);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/^user +0 +0 +1 +3 +0 +0 +0$/m);
    expect(sandbox.state.userByClientId('n1')?.lastName).toBe('Renamed');
    expect((await sandboxCounters(sandbox)).duplicates).toEqual({});
  }, 90_000);
});
