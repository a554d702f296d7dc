import { describe, expect, it } from 'vitest';
import type { SyncHarness } from './sync-harness.js';
import { harnessPerFile } from './sync-harness.js';
import { applySeed } from '../../src/sandbox/sandbox-seed.js';
import { retryRun } from '../../src/sync/runs/retry-run.js';
import { conferenceFiles } from './conference-fixture.js';
import { sentBesidesChecks } from '../helpers/sent-calls.js';

describe('a whole conference against the sandbox', () => {
  let h: SyncHarness;
  harnessPerFile((started) => (h = started));

  it('syncs users, events, speaker links and schedules in phases, then a rerun sends nothing', async () => {
    h.write(conferenceFiles({ prefix: 'a', users: 12, events: 6 }));
    const first = await h.run('a.yaml');
    expect(first.counts).toEqual({
      user: { created: 12 },
      event: { created: 6 },
      speaker: { created: 6 },
      schedule: { created: 12 },
    });
    const user = h.sandbox.state.userByClientId('au3');
    expect(h.sandbox.state.schedules.get(user!.id)).toHaveLength(2);
    const event = h.sandbox.state.eventByClientId('ae2');
    expect(event?.speakers.map((s) => s.userId)).toEqual([h.sandbox.state.userByClientId('au3')?.id]);

    const before = sentBesidesChecks(h.sandbox.counters.snapshot());
    const second = await h.run('a.yaml');
    expect(second.totals).toEqual({ unchanged: 36 });
    expect(sentBesidesChecks(h.sandbox.counters.snapshot())).toBe(before);
  });

  it('skips links whose user is unknown, naming the missing parent', async () => {
    h.write(conferenceFiles({ prefix: 'b', users: 4, events: 3, orphanSpeakers: 2 }));
    const summary = await h.run('b.yaml');
    expect(summary.counts.speaker).toEqual({ created: 3, skipped: 2 });
    const skipped = await h.ledger.results(summary.run.id, { actions: ['skipped'] });
    expect(skipped.map((r) => r.key).sort()).toEqual(['be1/bghost1', 'be2/bghost2']);
    expect(skipped[0]?.errorMessage).toMatch(/user "bghost\d" is unknown/);
    expect(skipped[0]?.errorCode).toBe('EVSYNC_PARENT_MISSING');
  });

  it('skips links whose parent failed in this run', async () => {
    const files = conferenceFiles({ prefix: 'c', users: 3, events: 2 });
    // A session the platform refuses (its sponsor does not exist): its links must wait on it.
    files['c-events.csv'] = files['c-events.csv']!.replace(/^(ce1,.*),$/m, '$1,no-such-sponsor');
    h.write(files);
    const summary = await h.run('c.yaml');
    expect(summary.counts.event).toEqual({ created: 1, failed: 1 });
    const skipped = await h.ledger.results(summary.run.id, { actions: ['skipped'] });
    expect(skipped.length).toBeGreaterThan(0);
    for (const result of skipped) expect(result.errorMessage).toMatch(/event "ce1" did not sync in this run/);
    const failed = await h.ledger.results(summary.run.id, { actions: ['failed'] });
    expect(failed[0]).toMatchObject({ key: 'ce1', httpStatus: 422 });
    expect(failed[0]?.errorMessage).toMatch(/exhibitor_client_id/);
  });

  it('retry re-sends the failed intents and the links skipped because of them, as a new run; the next run sends nothing', async () => {
    const files = conferenceFiles({ prefix: 'r', users: 3, events: 2 });
    files['r-events.csv'] = files['r-events.csv']!.replace(/^(re1,.*),$/m, '$1,sponsor-r');
    h.write(files);
    const first = await h.run('r.yaml');
    expect(first.counts.event).toEqual({ created: 1, failed: 1 });

    // The operator adds the missing sponsor on the platform, then retries the failed rows.
    applySeed(h.sandbox.state, { exhibitors: [{ name: 'Sponsor R', client_ids: ['sponsor-r'] }] });
    const { summary: retried } = await retryRun(h.deps(), first.run.id, { kinds: ['event'] });
    // The links skipped because of the failed session go with it.
    expect(retried?.counts).toEqual({
      event: { created: 1 },
      speaker: { created: 1 },
      schedule: { created: 3 },
    });
    expect(retried?.run.options).toMatchObject({ retryOf: first.run.id });
    expect(h.sandbox.counters.duplicates()).toEqual({});
    expect(await retryRun(h.deps(), first.run.id, { kinds: ['user'] })).toEqual({
      nothingToRetry: `Run ${first.run.id} has no failed rows matching that filter: nothing to retry.`,
      stillFailing: 0,
      notFound: 0,
    });

    const next = await h.run('r.yaml');
    expect(next.counts).toEqual({
      user: { unchanged: 3 },
      event: { unchanged: 2 },
      speaker: { unchanged: 2 },
      schedule: { unchanged: 3 },
    });
  });

  it('commit-then-drop faults at 5 %, 10 % 503s and resets: everything ends created, nothing twice', async () => {
    h.sandbox.faults.set({
      commitDrop: { fraction: 0.05 },
      error503: { fraction: 0.1 },
      reset: { fraction: 0.05 },
      seed: 7,
    });
    h.write(conferenceFiles({ prefix: 'd', users: 120, events: 20 }));
    const summary = await h.run('d.yaml');
    const failures = await h.ledger.results(summary.run.id, { actions: ['failed'] });
    expect(failures.map((f) => `${f.kind} ${f.key}: ${f.errorMessage}`)).toEqual([]);
    expect(summary.counts.user).toEqual({ created: 120 });
    expect(summary.counts.event).toEqual({ created: 20 });
    const counters = h.sandbox.counters.snapshot();
    expect(h.sandbox.counters.duplicates()).toEqual({});
    expect(counters.statuses['503']).toBeGreaterThan(0);
    expect(counters.statuses.reset).toBeGreaterThan(0);
    expect(h.sandbox.state.conferenceUsers().filter((u) => u.email.startsWith('du'))).toHaveLength(120);
    expect(
      [...h.sandbox.state.events.values()].filter((e) => e.clientIds.some((c) => c.startsWith('de'))),
    ).toHaveLength(20);
  });
});
