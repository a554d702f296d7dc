import { afterAll, describe, expect, it } from 'vitest';
import { applySeed } from '../../src/sandbox/sandbox-seed.js';
import { cliWorkspace } from '../helpers/built-cli.js';

const JOB = `name: refused
steps:
  - { mapping: users, source: { csv: ./people.csv } }
  - { mapping: events, source: { csv: ./events.csv } }
  - { mapping: schedules, source: { csv: ./picks.csv } }
`;
const event = (id: string, hour: number, sponsor: string): string =>
  `${id},Session ${id},About ${id},2026-06-01T${hour}:00:00Z,2026-06-01T${hour}:45:00Z,${sponsor}`;

interface PlanJson {
  counts: Record<string, Record<string, number>>;
  skipped: { lost: number };
  examples: Array<{ kind: string; note?: string }>;
}

interface ReportRow {
  kind: string;
  key: string;
  action: string;
  error_code: string | null;
  message: string | null;
}

const REFUSED_PICK =
  /^not sent again: the platform has it as last sent, sent without 1 of its 2 events: event "i[23]" (was refused by the platform in run \S+ on \d{4}-\d\d-\d\d, and no run has synced it since \(|did not sync in this run: )POST \/event answered 422/;

// Fault F7, found through the built CLI: a session whose row passes evsync's checks but that
// the platform refuses every night (422: its sponsor is no exhibitor there) left the
// schedules that pick it sent short, the same list, and recorded `updated`, on every run;
// and each retry of a run sent again the schedules an earlier retry had synced whole. A pick
// of an event the platform refused is now lost as one whose row failed: told every night
// (exit 1) without a call, counted so by `plan` and `run --dry-run`; once the event syncs,
// the schedule goes whole. A retry sends only what still needs sending.
describe('a schedule whose pick the platform refuses every night', () => {
  const ws = cliWorkspace('evsync-refused-pick-');
  afterAll(() => ws.close());

  it('is told as a lost pick without being sent again, and retries send only what is left', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml': JOB,
      'people.csv':
        'client_id,email,first_name,last_name\nA-1,a1@example.org,Ann,One\nB-2,b2@example.org,Bob,Two\n',
      'events.csv': [
        'client_id,name,description,start,finish,sponsor_client_id',
        event('i1', 10, ''),
        event('i2', 11, 'sp-2'),
        event('i3', 12, 'sp-3'),
        '',
      ].join('\n'),
      'picks.csv': 'user_client_id,event_client_id\nA-1,i1\nA-1,i2\nB-2,i1\nB-2,i3\n',
    });
    const report = async (runId: string): Promise<ReportRow[]> =>
      JSON.parse((await ws.run(sandbox, ['report', runId, '--format', 'json'])).stdout) as ReportRow[];
    const schedules = async (runId: string): Promise<ReportRow[]> =>
      (await report(runId))
        .filter((row) => row.kind === 'schedule')
        .sort((a, b) => a.key.localeCompare(b.key));
    const picksOf = (key: string): string[] =>
      sandbox.state
        .scheduleOf(sandbox.state.userByClientId(key)!.id)
        .map((id) => sandbox.state.events.get(id)!.clientIds[0]!)
        .sort();
    const scheduleCalls = (): number => sandbox.counters.snapshot().calls['PUT /event/schedule'] ?? 0;

    const first = await ws.run(sandbox, ['run', 'job.yaml', '--json']);
    expect(first.code, first.stdout + first.stderr).toBe(1);
    const firstId = (JSON.parse(first.stdout) as { runId: string }).runId;
    expect(picksOf('A-1')).toEqual(['i1']);
    expect(picksOf('B-2')).toEqual(['i1']);

    // The plan says it ahead, as the run will record it: skipped, lost; a dry run exits 1.
    const plan = await ws.run(sandbox, ['plan', 'job.yaml', '--json']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const summary = JSON.parse(plan.stdout) as PlanJson;
    expect(summary.counts.schedule).toEqual({ skipped: 2 });
    expect(summary.skipped.lost).toBe(2);
    expect(summary.examples.find((e) => e.kind === 'schedule')?.note).toMatch(REFUSED_PICK);
    const dry = await ws.run(sandbox, ['run', 'job.yaml', '--dry-run']);
    expect(dry.code, dry.stdout + dry.stderr).toBe(1);
    expect(dry.stdout).toMatch(/^schedule +0 +0 +0 +0 +0 +2$/m);

    for (const night of [2, 3]) {
      sandbox.counters.reset();
      const told = await ws.run(sandbox, ['run', 'job.yaml', '--json']);
      expect(told.code, `night ${night}: ${told.stdout}${told.stderr}`).toBe(1);
      const lastNight = (JSON.parse(told.stdout) as { runId: string }).runId;
      expect(scheduleCalls(), `night ${night}`).toBe(0);
      for (const row of await schedules(lastNight)) {
        expect(row, `night ${night}`).toMatchObject({
          action: 'skipped',
          error_code: 'EVSYNC_SCHEDULE_PICKS_MISSING',
        });
        expect(row.message, `night ${night}`).toMatch(REFUSED_PICK);
      }
      expect((await ws.run(sandbox, ['runs', '--job', 'refused'])).stdout).toMatch(
        new RegExp(`^${lastNight} .*skipped 2.*; 2 lost$`, 'm'),
      );
    }

    // The organiser adds one sponsor on the platform and retries the first night, which sent
    // the schedules short: A-1's goes whole with i2; B-2's stays as the platform has it, i3
    // refused again.
    applySeed(sandbox.state, { exhibitors: [{ name: 'Sponsor 2', client_ids: ['sp-2'] }] });
    sandbox.counters.reset();
    const retried = await ws.run(sandbox, ['retry', firstId]);
    expect(retried.code, retried.stdout + retried.stderr).toBe(1);
    expect(scheduleCalls()).toBe(1);
    expect(picksOf('A-1')).toEqual(['i1', 'i2']);
    expect(picksOf('B-2')).toEqual(['i1']);

    // A second retry sends only i3, refused again: nothing the first one synced.
    sandbox.counters.reset();
    const again = await ws.run(sandbox, ['retry', firstId, '--json']);
    expect(again.code, again.stdout + again.stderr).toBe(1);
    expect(sandbox.counters.snapshot().calls).toMatchObject({ 'POST /event': 1 });
    expect(scheduleCalls()).toBe(0);
    const againId = (JSON.parse(again.stdout) as { runId: string }).runId;
    expect((await schedules(againId)).map((row) => [row.key, row.action])).toEqual([
      ['A-1', 'unchanged'],
      ['B-2', 'skipped'],
    ]);

    // The next night: A-1's schedule is synced whole, B-2's pick of i3 still lost.
    sandbox.counters.reset();
    const night = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(night.code, night.stdout + night.stderr).toBe(1);
    expect(scheduleCalls()).toBe(0);
    expect(night.stdout).toMatch(/^schedule +0 +0 +0 +1 +0 +1 +0$/m);
    expect(sandbox.counters.duplicates()).toEqual({});
  }, 180_000);
});
