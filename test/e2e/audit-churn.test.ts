import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, spawnBuiltCli, type CliWorkspace } from '../helpers/built-cli.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Issue #41 point 10 through the built CLI: another client removes and re-creates users of
 * the conference while `evsync audit` pages through `GET /user`. The platform's pages shift
 * under the audit (the users after a removed one move one place up, onto a page already
 * read), so a page-by-page read misses them; none of them is missing, and the audit must not
 * say so (nor `--repair` send them again).
 */
const USERS = 250;
const CHURNED = 5;

describe('audit while another client removes and re-creates users (issue #41 point 10)', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    workspace = cliWorkspace('evsync-audit-churn-');
    sandbox = await workspace.sandbox();
    const rows = Array.from(
      { length: USERS },
      (_, i) => `u${i + 1},u${i + 1}@example.org,Ada${i + 1},Lovelace`,
    );
    writeFileSync(
      join(workspace.dir, 'users.csv'),
      ['client_id,email,first_name,last_name', ...rows, ''].join('\n'),
    );
    // One page at a time (concurrency 1), so that the churn falls between two pages.
    writeFileSync(
      join(workspace.dir, 'job.yaml'),
      'name: churn\nrate: { per_second: 500, concurrency: 1 }\nsteps:\n  - { mapping: users, source: { csv: users.csv } }\n',
    );
  });
  afterAll(async () => workspace.close());

  it('reports no user missing, and counts them all in sync', async () => {
    const run = await workspace.run(sandbox, ['run', 'job.yaml']);
    expect(run.code, run.stderr).toBe(0);
    expect(sandbox.state.conferenceUsers()).toHaveLength(USERS);

    // Each page waits, so that the churn lands after the first page and before the second.
    sandbox.faults.set({ latency: { minMs: 700, maxMs: 700 } });
    const child = spawnBuiltCli(['audit', 'job.yaml', '--json'], {
      cwd: workspace.dir,
      env: workspace.envFor(sandbox),
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.once('exit', done));
    await waitFor(async () => Promise.resolve(sandbox.counters.callsTo('GET', '/user') >= 1), 60_000);
    // The first users of the first page leave and come back as new platform users (new ids,
    // the same client_ids): every user after them moves up by CHURNED places.
    const first = sandbox.state
      .conferenceUsers()
      .sort((a, b) => a.id - b.id)
      .slice(0, CHURNED);
    for (const user of first) {
      sandbox.state.removeUserFromConference(user);
      sandbox.state.putUser({ ...structuredClone(user), id: sandbox.state.nextId(), inConference: true });
    }
    const code = await exited;
    sandbox.faults.set({});
    expect(code, stderr).toBe(0);
    const audit = JSON.parse(stdout) as {
      summary: { user: Record<string, number> };
      drift: Array<{ key: string; type: string }>;
    };
    expect(audit.drift.filter((entry) => entry.type === 'missing')).toEqual([]);
    expect(audit.summary.user).toMatchObject({ in_sync: USERS, missing: 0, changed: 0 });
  }, 180_000);
});
