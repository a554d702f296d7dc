import { describe, expect, it } from 'vitest';
import { applySeed } from '../../src/sandbox/sandbox-seed.js';
import { retryRun } from '../../src/sync/runs/retry-run.js';
import type { SyncHarness } from './sync-harness.js';
import { harnessPerFile } from './sync-harness.js';

const JOB = `name: agenda
steps:
  - { mapping: users, source: { csv: ./people.csv } }
  - { mapping: events, source: { csv: ./events.csv } }
  - { mapping: schedules, source: { csv: ./picks.csv } }
`;
const event = (id: string, hour: number, sponsor: string): string =>
  `${id},Session ${id},About ${id},2026-06-01T${hour}:00:00Z,2026-06-01T${hour}:45:00Z,${sponsor}`;

// Fault F7, item 2: a retry sent again the schedules (and the refused rows) that an earlier
// retry of the same run had synced, and the schedules still short of the same refused event.
// Each retry now sends only what still needs sending (docs/sync-engine.md, "Retry").
describe('a second retry of a run', () => {
  let h: SyncHarness;
  harnessPerFile((started) => (h = started));

  it('sends only the row still refused, not what the first retry synced', async () => {
    h.write({
      'job.yaml': JOB,
      'people.csv':
        'client_id,email,first_name,last_name\nA-1,a1@example.org,Ann,One\nB-2,b2@example.org,Bob,Two\n',
      // The platform refuses both sponsored sessions (422: no such exhibitor); evsync's checks let them through.
      'events.csv': [
        'client_id,name,description,start,finish,sponsor_client_id',
        event('i1', 10, ''),
        event('i2', 11, 'sp-2'),
        event('i3', 12, 'sp-3'),
        '',
      ].join('\n'),
      'picks.csv': 'user_client_id,event_client_id\nA-1,i1\nA-1,i2\nB-2,i1\nB-2,i3\n',
    });
    const first = await h.run('job.yaml');
    expect(first.counts.event).toEqual({ created: 1, failed: 2 });
    expect(first.counts.schedule).toEqual({ created: 2 });

    // The organiser adds one sponsor on the platform, and retries.
    applySeed(h.sandbox.state, { exhibitors: [{ name: 'Sponsor 2', client_ids: ['sp-2'] }] });
    const once = await retryRun(h.deps(), first.run.id);
    expect(once.summary?.counts).toMatchObject({
      event: { created: 1, failed: 1 },
      schedule: { created: 1, skipped: 1 },
    });
    const picksOf = (key: string): string[] =>
      h.sandbox.state
        .scheduleOf(h.sandbox.state.userByClientId(key)!.id)
        .map((id) => h.sandbox.state.events.get(id)!.clientIds[0]!)
        .sort();
    expect(picksOf('A-1')).toEqual(['i1', 'i2']);
    expect(picksOf('B-2')).toEqual(['i1']);

    for (const time of ['second', 'third']) {
      h.sandbox.counters.reset();
      const again = await retryRun(h.deps(), first.run.id);
      const calls = h.sandbox.counters.snapshot().calls;
      // Only i3 goes, refused again; A-1's schedule and i2 are synced, B-2's is as the platform has it.
      expect(calls['POST /event'], time).toBe(1);
      expect(calls['PUT /event/schedule'] ?? 0, time).toBe(0);
      expect(calls['PUT /event/member/{id}'] ?? 0, time).toBe(0);
      expect(again.summary?.counts, time).toEqual({
        event: { unchanged: 1, failed: 1 },
        schedule: { unchanged: 1, skipped: 1 },
      });
      const b2 = await h.ledger.results(again.summary!.run.id, { kinds: ['schedule'], keys: ['B-2'] });
      expect(b2[0], time).toMatchObject({ action: 'skipped', errorCode: 'EVSYNC_SCHEDULE_PICKS_MISSING' });
      expect(b2[0]?.errorMessage, time).toMatch(
        /^not sent again: the platform has it as last sent, sent without 1 of its 2 events: event "i3" did not sync in this run: POST \/event answered 422/,
      );
    }
    expect(picksOf('A-1')).toEqual(['i1', 'i2']);
    expect(h.sandbox.counters.duplicates()).toEqual({});
  }, 120_000);
});
