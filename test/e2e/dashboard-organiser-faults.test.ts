import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import {
  cliWorkspace,
  spawnBuiltCli,
  startBuiltDashboard,
  type BuiltDashboard,
  type CliWorkspace,
} from '../helpers/built-cli.js';
import { waitFor } from '../helpers/wait-for.js';

const TOKEN = 'organiser-faults-token-0123456789';
const PEOPLE = 'client_id,email,first_name,last_name';

interface ListedRun {
  id: string;
  processGone: boolean;
  durationMs: number;
  durationNote: string;
  counts: Record<string, number>;
  startedAt: string;
}

// Three faults an organiser met on the dashboard (built CLI and dashboard, embedded ledger):
// held keys shown only by `evsync status`, a cut-off run's duration growing on every look,
// and a retried run's Retry page offering to send its failed rows again.
describe('the dashboard as an organiser uses it (built CLI)', () => {
  let ws: CliWorkspace;
  let sandbox: RunningSandbox;
  let dashboard: BuiltDashboard;
  const get = async (path: string, json = false): Promise<Response> =>
    fetch(`${dashboard.base}${path}`, {
      headers: { authorization: `Bearer ${TOKEN}`, ...(json ? { accept: 'application/json' } : {}) },
    });

  beforeAll(async () => {
    ws = cliWorkspace('evsync-organiser-faults-');
    sandbox = await ws.sandbox();
    ws.write({
      'attendees.yaml': 'name: attendees\nsteps:\n  - { mapping: users, source: { csv: ./attendees.csv } }\n',
      'attendees.csv': [PEOPLE, 'QWE-1,amy@example.org,Amy,Able', ''].join('\n'),
    });
    expect((await ws.run(sandbox, ['run', 'attendees.yaml'])).code).toBe(0);
    dashboard = await startBuiltDashboard({
      cwd: ws.dir,
      env: { ...ws.envFor(sandbox), EVSYNC_DASHBOARD_TOKEN: TOKEN },
    });
  }, 120_000);
  afterAll(async () => {
    await dashboard?.stop();
    await ws?.close();
  });

  it('lists the held keys under the jobs, as evsync status does', async () => {
    // The ticket is handed on to Zed: the run refuses QWE-1 as now another person, and holds it.
    ws.write({ 'attendees.csv': [PEOPLE, 'QWE-1,zed@example.org,Zed,Zimmer', ''].join('\n') });
    const refused = await ws.run(sandbox, ['run', 'attendees.yaml']);
    expect(refused.code, refused.stdout + refused.stderr).toBe(1);
    const runId = /^Run (\S+) /.exec(refused.stdout)![1]!;
    const status = await ws.run(sandbox, ['status']);
    expect(status.stdout).toContain(`user "QWE-1" on `);

    const page = await (await get('/runs')).text();
    expect(page).toContain('Held keys (a run refused their user as now another person');
    const line = /<li data-held="user:QWE-1">([\s\S]*?)<\/li>/.exec(page)?.[1] ?? '';
    expect(line).toContain(`refused by run ${runId} of job &quot;attendees&quot;`);
    expect(line).toContain(`href="/runs/${runId}/results?status=failed&amp;q=QWE-1"`);
    expect(line).toContain('EVSYNC_KEY_NOW_ANOTHER_PERSON');
    const data = (await (await get('/runs', true)).json()) as {
      heldKeys: Array<{ clientId: string; runId: string }>;
    };
    expect(data.heldKeys.map((hold) => [hold.clientId, hold.runId])).toEqual([['QWE-1', runId]]);
  }, 120_000);

  it("shows a cut-off run's time until its last result, not until now", async () => {
    ws.write({
      'slow.yaml':
        'name: slow\nrate: { per_second: 5, concurrency: 1 }\nsteps:\n  - { mapping: users, source: { csv: ./slow.csv } }\n',
      'slow.csv': [
        PEOPLE,
        ...Array.from({ length: 60 }, (_, i) => `slow${i},slow${i}@example.org,S${i},Low`),
        '',
      ].join('\n'),
    });
    const child = spawnBuiltCli(['run', 'slow.yaml'], { cwd: ws.dir, env: ws.envFor(sandbox) });
    const closed = new Promise((resolveClosed) => child.once('close', resolveClosed));
    const slowRun = async (): Promise<ListedRun | undefined> => {
      const data = (await (await get('/runs', true)).json()) as {
        runs: Array<ListedRun & { jobName: string }>;
      };
      return data.runs.find((run) => run.jobName === 'slow');
    };
    await waitFor(async () => ((await slowRun())?.counts.created ?? 0) >= 3, 60_000);
    child.kill('SIGKILL');
    await closed;
    await waitFor(async () => (await slowRun())?.processGone === true, 30_000);

    const first = (await slowRun())!;
    await new Promise((resolveWait) => setTimeout(resolveWait, 1_500));
    const again = (await slowRun())!;
    expect(again.durationMs).toBe(first.durationMs);
    expect(first.durationNote).toBe(' (until cut off)');
    expect(first.durationMs).toBeLessThan(20_000);
    const page = await (await get(`/runs/${first.id}`)).text();
    expect(page).toMatch(/<dd data-duration>[^<]+ \(until cut off\)<\/dd>/);
    // The jobs box says when it stopped: at its last result, not at its start.
    const jobs = await (await get('/runs')).text();
    const box = /<li [^>]*data-job="slow">([\s\S]*?)<\/li>/.exec(jobs)?.[1] ?? '';
    const stopped = /<strong data-outcome>cut off<\/strong> at <time datetime="([^"]+)"/.exec(box)?.[1];
    expect(stopped).toBeDefined();
    expect(Date.parse(stopped!)).toBeGreaterThan(Date.parse(first.startedAt));
    const runs = await ws.run(sandbox, ['runs', '--limit', '1']);
    expect(runs.stdout).toMatch(new RegExp(`${first.id} .* cut off .* \\d+\\.\\ds \\(until cut off\\)`));
    // Its results so far, as the dashboard counts them (the build before showed none).
    expect(runs.stdout).toMatch(
      new RegExp(`${first.id} .* \\(until cut off\\) +created ${first.counts.created}\\b`),
    );
  }, 120_000);

  it('says a retried run was retried, by which run, and offers no second send', async () => {
    ws.write({
      'people.yaml': 'name: people\nsteps:\n  - { mapping: users, source: { csv: ./people.csv } }\n',
      'people.csv': [PEOPLE, 'P-1,pat@example.org,Pat,Poe', 'P-2,kim.at.example.org,Kim,Kay', ''].join('\n'),
    });
    const failed = await ws.run(sandbox, ['run', 'people.yaml']);
    expect(failed.code).toBe(1);
    const runId = /^Run (\S+) /.exec(failed.stdout)![1]!;
    ws.write({
      'people.csv': [PEOPLE, 'P-1,pat@example.org,Pat,Poe', 'P-2,kim@example.org,Kim,Kay', ''].join('\n'),
    });
    const retry = await ws.run(sandbox, ['retry', runId]);
    expect(retry.code, retry.stdout + retry.stderr).toBe(0);
    const retryId = /^Run (\S+) /.exec(retry.stdout)![1]!;

    const page = await (await get(`/runs/${runId}/retry`)).text();
    expect(page).toContain(`Retried by <a href="/runs/${retryId}">${retryId}</a>`);
    expect(page).toContain(`was retried already by run ${retryId}, which synced all its 1 row that failed`);
    expect(page).toContain('Nothing is left to retry');
    expect(page).not.toContain(`action="/runs/${runId}/retry"`);
    // The page does not also offer, in its words, to send the row again.
    expect(page).not.toContain('Sends again the');

    // The CLI says the same and starts no run.
    const before = (await ws.run(sandbox, ['runs', '--json'])).stdout;
    const second = await ws.run(sandbox, ['retry', runId]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(
      `was retried already by run ${retryId}, which synced all its 1 row that failed`,
    );
    expect(JSON.parse((await ws.run(sandbox, ['runs', '--json'])).stdout)).toHaveLength(
      (JSON.parse(before) as unknown[]).length,
    );
  }, 120_000);
});
