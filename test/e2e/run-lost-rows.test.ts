import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace, startBuiltDashboard } from '../helpers/built-cli.js';

const PEOPLE = 'client_id,email,first_name,last_name';
const EVENTS = [
  'client_id,name,description,start,finish',
  's1,Opening,Welcome,2026-06-01T09:00:00Z,2026-06-01T10:00:00Z',
  '',
].join('\n');
const TOKEN = 'run-lost-rows-test-token-0123456789abcdef';

interface StatusJson {
  syncJobs: Array<{
    job: string;
    lastRun: { id: string; shownStatus: string; lost: number } | null;
    lastSuccess: { id: string } | null;
  }>;
}

// A run that skipped rows for want of data (here a session whose attendee's key is held as
// now another person) exits 1, yet its record said "completed" and nothing else: the
// morning's screens called it the job's last success, `status --check` called the job well,
// and the dashboard said "nothing to retry or resume". The run now keeps how many rows it
// lost, and every screen says so as the exit code did.
describe('a run that lost rows for want of data', () => {
  const ws = cliWorkspace('evsync-lost-rows-');
  afterAll(() => ws.close());

  it('is no success on any screen, and says what to fix', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'door.yaml': 'name: door\nmode: upsert\nsteps:\n  - { mapping: users, source: { csv: ./door.csv } }\n',
      'rsvp.yaml':
        'name: rsvp\nmode: upsert\nsteps:\n  - { mapping: events, source: { csv: ./events.csv } }\n  - { mapping: rsvps, source: { csv: ./rsvp.csv } }\n',
      'events.csv': EVENTS,
      'door.csv': [PEOPLE, 'TIX-1,cat@example.org,Cat,Cole', ''].join('\n'),
      'rsvp.csv': 'user_client_id,event_client_id\n',
    });
    expect((await ws.run(sandbox, ['run', 'door.yaml'])).code).toBe(0);
    const first = await ws.run(sandbox, ['run', 'rsvp.yaml', '--json']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const success = (JSON.parse(first.stdout) as { runId: string }).runId;
    // The ticket handed on: the key is held, and the session Cat booked cannot go to her account.
    ws.write({
      'door.csv': [PEOPLE, 'TIX-1,dan@example.org,Dan,Dale', ''].join('\n'),
      'rsvp.csv': 'user_client_id,event_client_id\nTIX-1,s1\n',
    });
    expect((await ws.run(sandbox, ['run', 'door.yaml'])).code).toBe(1);
    const lossy = await ws.run(sandbox, ['run', 'rsvp.yaml', '--json']);
    expect(lossy.code, lossy.stdout + lossy.stderr).toBe(1);
    const runId = (JSON.parse(lossy.stdout) as { runId: string }).runId;
    expect(sandbox.state.userByClientId('TIX-1')?.email).toBe('cat@example.org');

    const runs = await ws.run(sandbox, ['runs', '--job', 'rsvp']);
    expect(runs.stdout).toMatch(new RegExp(`^${runId} .*completed .*skipped 1.*; 1 lost$`, 'm'));

    const status = await ws.run(sandbox, ['status']);
    expect(status.stdout).toMatch(/^ {2}rsvp +completed, 1 lost /m);
    const json = JSON.parse((await ws.run(sandbox, ['status', '--json'])).stdout) as StatusJson;
    const rsvp = json.syncJobs.find((job) => job.job === 'rsvp');
    expect(rsvp?.lastRun).toMatchObject({ id: runId, lost: 1 });
    // The job's last success is the run before: this one did not sync all it was given.
    expect(rsvp?.lastSuccess?.id).toBe(success);

    const check = await ws.run(sandbox, ['status', '--check']);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain('rows not synced in the last run of door (1 failed), rsvp (1 lost)');

    const retry = await ws.run(sandbox, ['retry', runId]);
    expect(retry.stdout).toContain(`Run ${runId} has no failed rows: nothing to retry.`);
    expect(retry.stdout).toContain(
      `1 row was lost for want of data a retry cannot give: \`evsync report ${runId} --status skipped\``,
    );

    const dashboard = await startBuiltDashboard({
      cwd: ws.dir,
      env: { ...ws.envFor(sandbox), EVSYNC_DASHBOARD_TOKEN: TOKEN },
    });
    try {
      const page = await fetch(`${dashboard.base}/runs/${runId}`, {
        headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/html' },
      });
      const html = await page.text();
      expect(page.status, html).toBe(200);
      expect(html).toContain('completed, 1 lost');
      expect(html).toContain('1 row was lost for want of data they need');
      expect(html).not.toContain('without failures');
    } finally {
      await dashboard.stop();
    }
  }, 180_000);
});
