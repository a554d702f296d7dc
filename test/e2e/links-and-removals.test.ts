import { afterEach, describe, expect, it } from 'vitest';
import type { SpeakerRecord } from '../../src/sandbox/state-types.js';
import type { SyncPlatform } from '../../src/sync/processors/sync-platform.js';
import { DeleteThresholdError } from '../../src/sync/plan/delete-threshold-error.js';
import type { SyncHarness } from './sync-harness.js';
import { harnessPerFile, jobYaml, people, usersCsv } from './sync-harness.js';
import { sentBesidesChecks } from '../helpers/sent-calls.js';

// RSVPs (from schedules in `schedule_mode: rsvp`, and from the shipped `rsvps` mapping),
// speaker-link removals, mirror deletes of events with their links, and a 429 storm, all
// against the sandbox over real HTTP with the shipped mappings. One sandbox and one embedded
// ledger for the file; each test keeps to its own client_id prefix. Mirror-mode tests start
// from an empty ledger: the ledger's known keys are global, so other tests' keys would be
// delete candidates.
describe('links, removals and rate limits against the sandbox', () => {
  let h: SyncHarness;
  harnessPerFile((started) => (h = started));
  // The sandbox's reset between tests leaves its rate limit as it is.
  afterEach(() => h?.sandbox.rateLimiter.set(undefined));

  interface Step {
    mapping: string;
    csv: string;
    extra?: string;
  }
  /**
   * Writes a job file of these steps (shipped mappings, CSVs in the job folder). Mirror mode
   * deletes what runs of the same job synced, so a mirror variant keeps the job's name.
   */
  const job = (name: string, steps: Step[], extra = '', file = name): string => {
    const lines = steps.map(
      (s) => `  - { mapping: ${s.mapping}, source: { csv: ./${s.csv} }${s.extra ? `, ${s.extra}` : ''} }\n`,
    );
    h.write({ [`${file}.yaml`]: jobYaml(name, lines.join(''), extra) });
    return `${file}.yaml`;
  };

  /** Events in the shipped `events` mapping's columns; an event's hour comes from its number. */
  const eventsCsv = (ids: readonly string[]): string => {
    const lines = ['client_id,name,description,start,finish'];
    for (const id of ids) {
      const hour = String(8 + Number(/\d+$/.exec(id)![0])).padStart(2, '0');
      lines.push(`${id},Session ${id},About ${id},2026-06-01T${hour}:00:00Z,2026-06-01T${hour}:45:00Z`);
    }
    return `${lines.join('\n')}\n`;
  };
  const csv = (header: string, rows: ReadonlyArray<readonly string[]>): string =>
    `${[header, ...rows.map((r) => r.join(','))].join('\n')}\n`;

  const userId = (clientId: string): number => h.sandbox.state.userByClientId(clientId)!.id;
  const eventId = (clientId: string): number => h.sandbox.state.eventByClientId(clientId)!.id;
  const scheduleOf = (userClientId: string): number[] =>
    [...h.sandbox.state.scheduleOf(userId(userClientId))].sort((a, b) => a - b);
  const eventIds = (...clientIds: string[]): number[] => clientIds.map(eventId).sort((a, b) => a - b);
  const byUser = (a: SpeakerRecord, b: SpeakerRecord): number => a.userId - b.userId;
  const speakersOf = (eventClientId: string): SpeakerRecord[] =>
    [...h.sandbox.state.eventByClientId(eventClientId)!.speakers].sort(byUser);
  /** Speaker links as the sandbox keeps them, in the order `speakersOf` gives them. */
  const speakerLinks = (...links: Array<[userClientId: string, type: string]>): SpeakerRecord[] =>
    links.map(([user, type]) => ({ userId: userId(user), type })).sort(byUser);

  const RSVP_POST = ['POST', '/event/rsvp/{id}'] as const;
  const RSVP_DELETE = ['DELETE', '/event/rsvp/{id}'] as const;
  const SPEAKER_DELETE = ['DELETE', '/speaker/event/{id}'] as const;

  it('schedule_mode rsvp: one RSVP per row, a rerun sends nothing, a dropped row stays in upsert mode and is removed in mirror mode', async () => {
    await h.reopenLedger();
    const steps: Step[] = [
      { mapping: 'users', csv: 'sr-users.csv' },
      { mapping: 'events', csv: 'sr-events.csv' },
      { mapping: 'schedules', csv: 'sr-schedules.csv', extra: 'schedule_mode: rsvp' },
    ];
    const upsert = job('sr', steps);
    const mirror = job('sr', steps, 'mode: mirror\ndelete_threshold: 2\n', 'sr-mirror');
    // A user's rows need not be together: they are gathered per user, then split per event.
    const rows = [
      ['sr1', 'sre1'],
      ['sr2', 'sre2'],
      ['sr1', 'sre2'],
      ['sr2', 'sre3'],
      ['sr1', 'sre3'],
    ];
    h.write({
      'sr-users.csv': usersCsv(people(2, 'sr')),
      'sr-events.csv': eventsCsv(['sre1', 'sre2', 'sre3']),
      'sr-schedules.csv': csv('user_client_id,event_client_id', rows),
    });

    const first = await h.run(upsert);
    expect(first.counts).toEqual({ user: { created: 2 }, event: { created: 3 }, rsvp: { created: 5 } });
    expect(h.sandbox.counters.callsTo(...RSVP_POST)).toBe(5);
    expect(h.sandbox.counters.callsTo('PUT', '/event/schedule')).toBe(0);
    expect(scheduleOf('sr1')).toEqual(eventIds('sre1', 'sre2', 'sre3'));
    expect(scheduleOf('sr2')).toEqual(eventIds('sre2', 'sre3'));
    const keys = (await h.ledger.results(first.run.id, { kinds: ['rsvp'] })).map((r) => r.key).sort();
    expect(keys).toEqual(['sr1/sre1', 'sr1/sre2', 'sr1/sre3', 'sr2/sre2', 'sr2/sre3']);

    const before = sentBesidesChecks(h.sandbox.counters.snapshot());
    const second = await h.run(upsert);
    expect(second.counts).toEqual({
      user: { unchanged: 2 },
      event: { unchanged: 3 },
      rsvp: { unchanged: 5 },
    });
    expect(sentBesidesChecks(h.sandbox.counters.snapshot())).toBe(before);
    expect(h.sandbox.counters.callsTo(...RSVP_POST)).toBe(5);

    // Additive: in upsert mode a row that left the source is not removed from the schedule.
    h.write({ 'sr-schedules.csv': csv('user_client_id,event_client_id', rows.slice(1)) });
    const dropped = await h.run(upsert);
    expect(dropped.counts.rsvp).toEqual({ unchanged: 4 });
    expect(sentBesidesChecks(h.sandbox.counters.snapshot())).toBe(before);
    expect(scheduleOf('sr1')).toEqual(eventIds('sre1', 'sre2', 'sre3'));

    // Mirror mode: the RSVP that left the source is removed, and nothing else is sent.
    const mirrored = await h.run(mirror);
    expect(mirrored.counts).toEqual({
      user: { unchanged: 2 },
      event: { unchanged: 3 },
      rsvp: { unchanged: 4, deleted: 1 },
    });
    expect(h.sandbox.counters.callsTo(...RSVP_DELETE)).toBe(1);
    expect(sentBesidesChecks(h.sandbox.counters.snapshot())).toBe(before + 1);
    expect(scheduleOf('sr1')).toEqual(eventIds('sre2', 'sre3'));
    expect(scheduleOf('sr2')).toEqual(eventIds('sre2', 'sre3'));
    const [deleted] = await h.ledger.results(mirrored.run.id, { actions: ['deleted'] });
    expect(deleted).toMatchObject({ kind: 'rsvp', key: 'sr1/sre1' });

    // Gone from the ledger too: the next mirror run sends nothing.
    const again = await h.run(mirror);
    expect(again.totals).toEqual({ unchanged: 9 });
    expect(sentBesidesChecks(h.sandbox.counters.snapshot())).toBe(before + 1);
  });

  it('speakers mapping: a row switched to action remove takes the link off the event (updated), once', async () => {
    const file = job('sp', [
      { mapping: 'users', csv: 'sp-users.csv' },
      { mapping: 'events', csv: 'sp-events.csv' },
      { mapping: 'speakers', csv: 'sp-speakers.csv' },
    ]);
    const header = 'event_client_id,user_client_id,type,action';
    const rows = [
      ['spe1', 'sp1', 'Speaker', ''],
      ['spe1', 'sp2', 'Moderator', 'add'],
      ['spe2', 'sp2', '', ''],
    ];
    h.write({
      'sp-users.csv': usersCsv(people(2, 'sp')),
      'sp-events.csv': eventsCsv(['spe1', 'spe2']),
      'sp-speakers.csv': csv(header, rows),
    });
    const first = await h.run(file);
    expect(first.counts).toEqual({ user: { created: 2 }, event: { created: 2 }, speaker: { created: 3 } });
    expect(speakersOf('spe1')).toEqual(speakerLinks(['sp1', 'speaker'], ['sp2', 'moderator']));
    expect(speakersOf('spe2')).toEqual([{ userId: userId('sp2'), type: 'speaker' }]);

    rows[0] = ['spe1', 'sp1', 'Speaker', 'remove'];
    h.write({ 'sp-speakers.csv': csv(header, rows) });
    const before = sentBesidesChecks(h.sandbox.counters.snapshot());
    const removed = await h.run(file);
    expect(removed.counts).toEqual({
      user: { unchanged: 2 },
      event: { unchanged: 2 },
      speaker: { unchanged: 2, updated: 1 },
    });
    expect(sentBesidesChecks(h.sandbox.counters.snapshot()) - before).toBe(1);
    expect(h.sandbox.counters.callsTo(...SPEAKER_DELETE)).toBe(1);
    expect(h.sandbox.counters.snapshot().statuses['404']).toBeUndefined();
    expect(speakersOf('spe1')).toEqual([{ userId: userId('sp2'), type: 'moderator' }]);
    expect(speakersOf('spe2')).toEqual([{ userId: userId('sp2'), type: 'speaker' }]);
    const [updated] = await h.ledger.results(removed.run.id, { actions: ['updated'] });
    expect(updated).toMatchObject({ kind: 'speaker', key: 'spe1/sp1', attempts: 1 });
    // The user stays on the platform: only the link went.
    expect(h.sandbox.state.userByClientId('sp1')?.inConference).toBe(true);

    // The remove is synced: the next run does not send it again.
    const again = await h.run(file);
    expect(again.totals).toEqual({ unchanged: 7 });
    expect(sentBesidesChecks(h.sandbox.counters.snapshot()) - before).toBe(1);
  });

  it('rsvps mapping: added, then a row switched to action remove takes the event out of the schedule', async () => {
    const file = job('rv', [
      { mapping: 'users', csv: 'rv-users.csv' },
      { mapping: 'events', csv: 'rv-events.csv' },
      { mapping: 'rsvps', csv: 'rv-rsvps.csv' },
    ]);
    const header = 'user_client_id,event_client_id,action';
    const rows = [
      ['rv1', 'rve1', ''],
      ['rv1', 'rve2', 'add'],
      ['rv2', 'rve2', ''],
    ];
    h.write({
      'rv-users.csv': usersCsv(people(2, 'rv')),
      'rv-events.csv': eventsCsv(['rve1', 'rve2']),
      'rv-rsvps.csv': csv(header, rows),
    });
    const first = await h.run(file);
    expect(first.counts).toEqual({ user: { created: 2 }, event: { created: 2 }, rsvp: { created: 3 } });
    expect(h.sandbox.counters.callsTo(...RSVP_POST)).toBe(3);
    expect(scheduleOf('rv1')).toEqual(eventIds('rve1', 'rve2'));
    expect(scheduleOf('rv2')).toEqual(eventIds('rve2'));

    rows[1] = ['rv1', 'rve2', 'remove'];
    h.write({ 'rv-rsvps.csv': csv(header, rows) });
    const before = sentBesidesChecks(h.sandbox.counters.snapshot());
    const removed = await h.run(file);
    expect(removed.counts.rsvp).toEqual({ unchanged: 2, updated: 1 });
    expect(sentBesidesChecks(h.sandbox.counters.snapshot()) - before).toBe(1);
    expect(h.sandbox.counters.callsTo(...RSVP_DELETE)).toBe(1);
    expect(scheduleOf('rv1')).toEqual(eventIds('rve1'));
    expect(scheduleOf('rv2')).toEqual(eventIds('rve2'));
    const [updated] = await h.ledger.results(removed.run.id, { actions: ['updated'] });
    expect(updated).toMatchObject({ kind: 'rsvp', key: 'rv1/rve2' });
    expect(h.sandbox.state.eventByClientId('rve2')).toBeDefined();

    const again = await h.run(file);
    expect(again.totals).toEqual({ unchanged: 7 });
    expect(sentBesidesChecks(h.sandbox.counters.snapshot()) - before).toBe(1);
  });

  it('mirror mode deletes an event that left the source, its speaker links first, within delete_threshold', async () => {
    await h.reopenLedger();
    const steps: Step[] = [
      { mapping: 'users', csv: 'md-users.csv' },
      { mapping: 'events', csv: 'md-events.csv' },
      { mapping: 'speakers', csv: 'md-speakers.csv' },
    ];
    const header = 'event_client_id,user_client_id,type';
    const links = [
      ['mde1', 'md1', 'speaker'],
      ['mde1', 'md2', 'moderator'],
      ['mde2', 'md3', 'speaker'],
      ['mde3', 'md4', 'speaker'],
    ];
    h.write({
      'md-users.csv': usersCsv(people(4, 'md')),
      'md-events.csv': eventsCsv(['mde1', 'mde2', 'mde3']),
      'md-speakers.csv': csv(header, links),
    });
    const strict = job('md', steps, 'mode: mirror\ndelete_threshold: 1\n', 'md-strict');
    const lenient = job('md', steps, 'mode: mirror\ndelete_threshold: 2\n');
    const first = await h.run(lenient);
    expect(first.counts).toEqual({ user: { created: 4 }, event: { created: 3 }, speaker: { created: 4 } });
    const gone = eventId('mde1');
    expect(speakersOf('mde1')).toEqual(speakerLinks(['md1', 'speaker'], ['md2', 'moderator']));

    // The session and its two links leave the source.
    h.write({
      'md-events.csv': eventsCsv(['mde2', 'mde3']),
      'md-speakers.csv': csv(header, links.slice(2)),
    });
    // Two link deletes are more than a threshold of 1 allows: refused before any call.
    const before = sentBesidesChecks(h.sandbox.counters.snapshot());
    const refused = await h.run(strict).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DeleteThresholdError);
    expect((refused as Error).message).toMatch(/delete 2 of 4 known speaker/);
    expect(sentBesidesChecks(h.sandbox.counters.snapshot())).toBe(before);
    expect(h.sandbox.state.events.has(gone)).toBe(true);

    const calls: string[] = [];
    const mirrored = await h.run(lenient, { extra: { platform: recording(h.client, calls) } });
    expect(mirrored.counts).toEqual({
      user: { unchanged: 4 },
      event: { unchanged: 2, deleted: 1 },
      speaker: { unchanged: 2, deleted: 2 },
    });
    expect(calls).toEqual(['speakers.remove', 'speakers.remove', 'events.delete']);
    // The links were removed while the event was still there: no 404 on the way.
    expect(h.sandbox.counters.callsTo(...SPEAKER_DELETE)).toBe(2);
    expect(h.sandbox.counters.snapshot().statuses['404']).toBeUndefined();
    expect(sentBesidesChecks(h.sandbox.counters.snapshot()) - before).toBe(3);
    expect(h.sandbox.state.events.has(gone)).toBe(false);
    expect(h.sandbox.state.eventByClientId('mde1')).toBeUndefined();
    expect(speakersOf('mde2')).toEqual([{ userId: userId('md3'), type: 'speaker' }]);
    expect(speakersOf('mde3')).toEqual([{ userId: userId('md4'), type: 'speaker' }]);
    // The speakers stay in the conference: only their links to the deleted session went.
    expect(h.sandbox.state.userByClientId('md1')?.inConference).toBe(true);
    expect(h.sandbox.state.userByClientId('md2')?.inConference).toBe(true);
    const deleted = await h.ledger.results(mirrored.run.id, { actions: ['deleted'] });
    expect(deleted.map((r) => `${r.kind} ${r.key}`).sort()).toEqual([
      'event mde1',
      'speaker mde1/md1',
      'speaker mde1/md2',
    ]);

    const again = await h.run(lenient);
    expect(again.totals).toEqual({ unchanged: 8 });
    expect(sentBesidesChecks(h.sandbox.counters.snapshot()) - before).toBe(3);
  });

  it('a 429 storm mid-run: every user ends created, none failed, none twice', async () => {
    const file = job('rl', [{ mapping: 'users', csv: 'rl-users.csv' }]);
    h.write({ 'rl-users.csv': usersCsv(people(300, 'rl')) });
    // The client sends far faster than this, even on a loaded machine: the bucket runs dry and
    // the platform answers 429 (at 150/s with a burst of 60, a busy machine sent too slowly
    // for any 429 once the embedded ledger no longer shared the run's thread).
    h.sandbox.rateLimiter.set({ perSecond: 60, burst: 10 });
    const summary = await h.run(file);
    const failures = await h.ledger.results(summary.run.id, { actions: ['failed'] });
    expect(failures.map((f) => `${f.key}: ${f.errorMessage}`)).toEqual([]);
    expect(summary.counts).toEqual({ user: { created: 300 } });
    const counters = h.sandbox.counters.snapshot();
    expect(counters.statuses['429']).toBeGreaterThan(0);
    // Every 429 was sent again: one accepted create per user, and nothing else.
    expect(counters.calls['POST /user']).toBe(300 + counters.statuses['429']!);
    expect(h.sandbox.counters.duplicates()).toEqual({});
    expect(h.sandbox.state.conferenceUsers().filter((u) => u.email.startsWith('rl'))).toHaveLength(300);
    const results = await h.ledger.results(summary.run.id, { kinds: ['user'] });
    for (const result of results)
      expect(h.sandbox.state.users.get(result.platformId!)?.clientIds).toContain(result.key);
  });
});

/** The platform, noting which calls the processors make, in order. */
function recording(platform: SyncPlatform, calls: string[]): SyncPlatform {
  const wrap = <T extends object>(group: T, name: string): T =>
    new Proxy(group, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]): unknown => {
          calls.push(`${name}.${String(property)}`);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  return {
    vendor: platform.vendor,
    // The same conference as the client it wraps: its sync state is that conference's.
    ...(platform.baseUrl === undefined ? {} : { baseUrl: platform.baseUrl }),
    users: wrap(platform.users, 'users'),
    events: wrap(platform.events, 'events'),
    speakers: wrap(platform.speakers, 'speakers'),
    contacts: wrap(platform.contacts, 'contacts'),
    checkIns: wrap(platform.checkIns, 'checkIns'),
  };
}
