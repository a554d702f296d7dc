import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';

const JOB = `name: picks
steps:
  - { mapping: users, source: { csv: ./people.csv } }
  - { mapping: events, source: { csv: ./events.csv } }
  - { mapping: schedules, source: { csv: ./picks.csv } }
`;
const event = (id: string, hour: number): string =>
  `${id},Session ${id},About ${id},2026-06-01T${hour}:00:00Z,2026-06-01T${hour}:45:00Z`;
const EVENTS = ['client_id,name,description,start,finish', event('i1', 10), ''].join('\n');

interface PlanJson {
  counts: Record<string, Record<string, number>>;
  skipped: { lost: number };
  examples: Array<{ kind: string; note?: string }>;
}

interface ReportRow {
  kind: string;
  action: string;
  error_code: string | null;
  message: string | null;
}

// A tester's find: a person picks a session that no source has (a typo, or a session not
// exported yet). The list less that pick was the list synced the night before, so the plan
// called the schedule unchanged: no result named the lost pick, and the run exited 0 with
// every screen saying all was well. The same list is still not sent again (issue #40 item
// 8), but each run now records the pick as lost and exits 1, until the event is there; and
// `plan` and `run --dry-run` count it so ahead (before, they said "unchanged", exit 0).
describe('a schedule given a pick for an event in no source', () => {
  const ws = cliWorkspace('evsync-new-missing-pick-');
  afterAll(() => ws.close());

  it('is told as lost on every run (exit 1) without being sent again, then goes whole', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml': JOB,
      'people.csv': 'client_id,email,first_name,last_name\nISO-1,iso@example.org,Iso,Lund\n',
      'events.csv': EVENTS,
      'picks.csv': 'user_client_id,event_client_id\nISO-1,i1\n',
    });
    const first = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const user = sandbox.state.userByClientId('ISO-1')!;
    const picks = (): string[] =>
      sandbox.state
        .scheduleOf(user.id)
        .map((id) => sandbox.state.events.get(id)!.clientIds[0]!)
        .sort();

    ws.write({ 'picks.csv': 'user_client_id,event_client_id\nISO-1,i1\nISO-1,i9\n' });
    // The plan says it ahead, as the run will record it: skipped, lost; a dry run exits 1.
    const plan = await ws.run(sandbox, ['plan', 'job.yaml', '--json']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const summary = JSON.parse(plan.stdout) as PlanJson;
    expect(summary.counts.schedule).toEqual({ skipped: 1 });
    expect(summary.skipped.lost).toBe(1);
    expect(summary.examples.find((e) => e.kind === 'schedule')?.note).toMatch(
      /^not sent again: the platform has it as last sent, sent without 1 of its 2 events: event "i9" is unknown/,
    );
    const dry = await ws.run(sandbox, ['run', 'job.yaml', '--dry-run']);
    expect(dry.code, dry.stdout + dry.stderr).toBe(1);
    expect(dry.stdout).toMatch(/^schedule +0 +0 +0 +0 +0 +1$/m);
    expect(dry.stdout).toMatch(/, 1 lost for missing data\./);
    for (const night of [2, 3]) {
      sandbox.counters.reset();
      const told = await ws.run(sandbox, ['run', 'job.yaml', '--json']);
      expect(told.code, `night ${night}: ${told.stdout}${told.stderr}`).toBe(1);
      const runId = (JSON.parse(told.stdout) as { runId: string }).runId;
      const report = await ws.run(sandbox, ['report', runId, '--format', 'json']);
      const schedule = (JSON.parse(report.stdout) as ReportRow[]).find((row) => row.kind === 'schedule');
      expect(schedule).toMatchObject({ action: 'skipped', error_code: 'EVSYNC_SCHEDULE_PICKS_MISSING' });
      expect(schedule?.message).toMatch(
        /^not sent again: the platform has it as last sent, sent without 1 of its 2 events: event "i9" is unknown/,
      );
      expect(sandbox.counters.snapshot().calls['PUT /event/schedule'] ?? 0).toBe(0);
      expect(picks()).toEqual(['i1']);
      expect((await ws.run(sandbox, ['runs', '--job', 'picks'])).stdout).toMatch(
        new RegExp(`^${runId} .*; 1 lost$`, 'm'),
      );
    }

    // The session is exported at last: the schedule goes whole.
    ws.write({
      'events.csv': ['client_id,name,description,start,finish', event('i1', 10), event('i9', 11), ''].join(
        '\n',
      ),
    });
    const whole = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(whole.code, whole.stdout + whole.stderr).toBe(0);
    expect(picks()).toEqual(['i1', 'i9']);
  }, 120_000);
});
