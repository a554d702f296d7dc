import { describe, expect, it } from 'vitest';
import { applySeed } from '../../src/sandbox/sandbox-seed.js';
import type { SyncHarness } from './sync-harness.js';
import { harnessPerFile, jobYaml, people, usersCsv } from './sync-harness.js';
import { sentBesidesChecks } from '../helpers/sent-calls.js';

// The shipped contacts and check-ins mappings against the sandbox over real HTTP. One
// sandbox and one embedded ledger for the file; each test keeps to its own client_id prefix.
describe('contacts and check-ins against the sandbox', () => {
  let h: SyncHarness;
  harnessPerFile((started) => (h = started));

  /** A job of users, then the shipped `contacts` and/or `check_ins` mappings. */
  const job = (name: string, steps: Array<'contacts' | 'check_ins'>): string => {
    const lines = [`  - { mapping: users, source: { csv: ./${name}-users.csv } }`];
    for (const step of steps) lines.push(`  - { mapping: ${step}, source: { csv: ./${name}-${step}.csv } }`);
    h.write({ [`${name}.yaml`]: jobYaml(name, `${lines.join('\n')}\n`) });
    return `${name}.yaml`;
  };

  /** Platform users who are already in the conference (contacts name them by platform id). */
  const seedFriends = (prefix: string, count: number): number[] => {
    applySeed(h.sandbox.state, {
      users: Array.from({ length: count }, (_, i) => ({
        first_name: 'Friend',
        last_name: `No${i + 1}`,
        email: `${prefix}-friend${i + 1}@example.org`,
        client_ids: [`${prefix}-friend${i + 1}`],
        in_conference: true,
      })),
      exhibitors: [{ name: `Booth ${prefix}`, client_ids: [`${prefix}-booth`] }],
      events: [
        {
          client_id: `${prefix}-keynote`,
          name: 'Keynote',
          start: '2026-06-01T09:00:00Z',
          finish: '2026-06-01T10:00:00Z',
        },
      ],
    });
    return Array.from(
      { length: count },
      (_, i) => h.sandbox.state.userByClientId(`${prefix}-friend${i + 1}`)!.id,
    );
  };
  const boothId = (prefix: string): number => h.sandbox.state.exhibitorByClientId(`${prefix}-booth`)!.id;
  const keynoteId = (prefix: string): number => h.sandbox.state.eventByClientId(`${prefix}-keynote`)!.id;

  const contactsCsv = (rows: ReadonlyArray<[string, number | '', number | '', string]>): string =>
    `user_client_id,contact_user_id,exhibitor_id,action\n${rows.map((r) => r.join(',')).join('\n')}\n`;
  const checkInsCsv = (rows: ReadonlyArray<[string, string, string, number | '', string, string]>): string =>
    `check_in_id,user_client_id,location_type,location_id,center,display_value\n${rows
      .map((r) => r.map((cell) => (String(cell).includes(',') ? `"${cell}"` : cell)).join(','))
      .join('\n')}\n`;

  const checkInsOf = (clientId: string) => {
    const user = h.sandbox.state.userByClientId(clientId);
    return [...h.sandbox.state.checkIns.values()].filter((c) => c.userId === user?.id);
  };

  it('contacts: created, a rerun sends nothing, a row switched to remove sends one DELETE', async () => {
    const [friend1, friend2] = seedFriends('ct', 2);
    const file = job('ct', ['contacts']);
    const rows: Array<[string, number | '', number | '', string]> = [
      ['ct1', friend1!, '', ''],
      ['ct1', '', boothId('ct'), 'add'],
      ['ct2', friend2!, '', 'add'],
    ];
    h.write({ 'ct-users.csv': usersCsv(people(2, 'ct')), 'ct-contacts.csv': contactsCsv(rows) });

    const first = await h.run(file);
    expect(first.counts).toEqual({ user: { created: 2 }, contact: { created: 3 } });
    const owner1 = h.sandbox.state.userByClientId('ct1')!;
    const owner2 = h.sandbox.state.userByClientId('ct2')!;
    // Sent concurrently: the platform's order is not the file's.
    expect(h.sandbox.state.contactsOf(owner1.id)).toHaveLength(2);
    expect(h.sandbox.state.contactsOf(owner1.id)).toEqual(
      expect.arrayContaining([
        { kind: 'user', id: friend1 },
        { kind: 'exhibitor', id: boothId('ct') },
      ]),
    );
    expect(h.sandbox.state.contactsOf(owner2.id)).toEqual([{ kind: 'user', id: friend2 }]);
    expect(h.sandbox.counters.callsTo('POST', '/role/contacts')).toBe(3);
    const created = await h.ledger.results(first.run.id, { kinds: ['contact'] });
    expect(created.map((r) => r.key).sort()).toEqual(
      [`ct1/exhibitor:${boothId('ct')}`, `ct1/user:${friend1}`, `ct2/user:${friend2}`].sort(),
    );

    const before = sentBesidesChecks(h.sandbox.counters.snapshot());
    const second = await h.run(file);
    expect(second.totals).toEqual({ unchanged: 5 });
    expect(sentBesidesChecks(h.sandbox.counters.snapshot())).toBe(before);

    // The spec has no contact update: a changed row is an add turned into a remove.
    rows[2] = ['ct2', friend2!, '', 'remove'];
    h.write({ 'ct-contacts.csv': contactsCsv(rows) });
    const third = await h.run(file);
    expect(third.counts.contact).toEqual({ unchanged: 2, updated: 1 });
    expect(sentBesidesChecks(h.sandbox.counters.snapshot()) - before).toBe(1);
    expect(h.sandbox.counters.callsTo('DELETE', '/role/contacts')).toBe(1);
    expect(h.sandbox.state.contactsOf(owner2.id)).toEqual([]);
    expect(h.sandbox.state.contactsOf(owner1.id)).toHaveLength(2);
  });

  it('check-ins: created at an object and at a coordinate, and a rerun sends nothing', async () => {
    seedFriends('ci', 0);
    const file = job('ci', ['check_ins']);
    h.write({
      'ci-users.csv': usersCsv(people(2, 'ci')),
      'ci-check_ins.csv': checkInsCsv([
        ['ci-a', 'ci1', 'Event', keynoteId('ci'), '', 'Keynote hall'],
        ['ci-b', 'ci1', 'exhibitor', boothId('ci'), '', ''],
        ['ci-c', 'ci2', '', '', '13.4050, 52.5200', 'Brandenburg Gate'],
      ]),
    });
    const first = await h.run(file);
    expect(first.counts).toEqual({ user: { created: 2 }, check_in: { created: 3 } });
    expect(checkInsOf('ci1')).toHaveLength(2);
    expect(checkInsOf('ci1').map((c) => c.place)).toEqual(
      expect.arrayContaining([
        { kind: 'event', id: keynoteId('ci') },
        { kind: 'exhibitor', id: boothId('ci') },
      ]),
    );
    expect(checkInsOf('ci2')).toMatchObject([
      { displayValue: 'Brandenburg Gate', place: { kind: 'center', lat: 52.52, lng: 13.405 } },
    ]);
    const results = await h.ledger.results(first.run.id, { kinds: ['check_in'] });
    for (const result of results) expect(h.sandbox.state.checkIns.has(result.platformId!)).toBe(true);

    const before = sentBesidesChecks(h.sandbox.counters.snapshot());
    const second = await h.run(file);
    expect(second.totals).toEqual({ unchanged: 5 });
    expect(sentBesidesChecks(h.sandbox.counters.snapshot())).toBe(before);
    expect(h.sandbox.state.checkIns.size).toBe(3);
  });

  it('check-ins: a changed row is not posted again (the spec has no check-in update)', async () => {
    seedFriends('cu', 0);
    const file = job('cu', ['check_ins']);
    const row = (text: string): Array<[string, string, string, number | '', string, string]> => [
      ['cu-a', 'cu1', 'event', keynoteId('cu'), '', text],
    ];
    h.write({ 'cu-users.csv': usersCsv(people(1, 'cu')), 'cu-check_ins.csv': checkInsCsv(row('Hall A')) });
    expect((await h.run(file)).counts.check_in).toEqual({ created: 1 });

    h.write({ 'cu-check_ins.csv': checkInsCsv(row('Hall B')) });
    const before = sentBesidesChecks(h.sandbox.counters.snapshot());
    const second = await h.run(file);
    // A second POST would be a second check-in, not a change of the first.
    expect(sentBesidesChecks(h.sandbox.counters.snapshot())).toBe(before);
    expect(checkInsOf('cu1').map((c) => c.displayValue)).toEqual(['Hall A']);
    const [result] = await h.ledger.results(second.run.id, { kinds: ['check_in'] });
    expect(result).toMatchObject({ key: 'cu-a', errorCode: 'EVSYNC_CHECK_IN_UNCHANGEABLE' });
    expect(result?.errorMessage).toMatch(/cannot change a check-in.*new check_in_id/);
  });

  it('contacts and check-ins of a user that failed or is unknown end skipped, naming that user', async () => {
    const [friend] = seedFriends('sk', 1);
    const file = job('sk', ['contacts', 'check_ins']);
    h.write({
      'sk-users.csv': usersCsv(people(1, 'sk')),
      'sk-contacts.csv': contactsCsv([]),
      'sk-check_ins.csv': checkInsCsv([]),
    });
    expect((await h.run(file)).counts.user).toEqual({ created: 1 });

    // sk2 is new and the platform answers 500 to every try of its create (8 with this client).
    h.write({
      'sk-users.csv': usersCsv(people(2, 'sk')),
      'sk-contacts.csv': contactsCsv([
        ['sk1', friend!, '', ''],
        ['sk2', friend!, '', ''],
        ['sk-ghost', friend!, '', ''],
      ]),
      'sk-check_ins.csv': checkInsCsv([
        ['sk-a', 'sk1', 'event', keynoteId('sk'), '', ''],
        ['sk-b', 'sk2', 'event', keynoteId('sk'), '', ''],
        ['sk-c', 'sk-ghost', 'event', keynoteId('sk'), '', ''],
      ]),
    });
    h.sandbox.faults.set({ error500: { next: 8 } });
    const summary = await h.run(file);
    expect(summary.counts).toEqual({
      user: { unchanged: 1, failed: 1 },
      contact: { created: 1, skipped: 2 },
      check_in: { created: 1, skipped: 2 },
    });
    const skipped = await h.ledger.results(summary.run.id, { actions: ['skipped'] });
    const why = Object.fromEntries(skipped.map((r) => [`${r.kind} ${r.key}`, r.errorMessage]));
    expect(Object.keys(why).sort()).toEqual(
      [
        'check_in sk-b',
        'check_in sk-c',
        `contact sk-ghost/user:${friend}`,
        `contact sk2/user:${friend}`,
      ].sort(),
    );
    expect(why['check_in sk-b']).toMatch(/^skipped because user "sk2" did not sync in this run: /);
    expect(why[`contact sk2/user:${friend}`]).toMatch(
      /^skipped because user "sk2" did not sync in this run: /,
    );
    expect(why['check_in sk-c']).toMatch(/^skipped because user "sk-ghost" is unknown/);
    expect(why[`contact sk-ghost/user:${friend}`]).toMatch(/^skipped because user "sk-ghost" is unknown/);
    expect(skipped.every((r) => r.errorCode === 'EVSYNC_PARENT_MISSING')).toBe(true);
    expect(h.sandbox.state.userByClientId('sk2')).toBeUndefined();
    expect(h.sandbox.state.checkIns.size).toBe(1);
  });

  it('a lost answer to a contact add is sent again (adding twice keeps one); to a check-in, never', async () => {
    const [friend] = seedFriends('lo', 1);
    const file = job('lo', ['contacts']);
    h.write({ 'lo-users.csv': usersCsv(people(2, 'lo')), 'lo-contacts.csv': contactsCsv([]) });
    expect((await h.run(file)).counts.user).toEqual({ created: 2 });

    // Users are unchanged now: the first signed call of the next run is the contact add.
    h.write({ 'lo-contacts.csv': contactsCsv([['lo1', friend!, '', '']]) });
    h.sandbox.faults.set({ commitDrop: { next: 1 } });
    const contacts = await h.run(file);
    expect(contacts.counts.contact).toEqual({ created: 1 });
    expect(h.sandbox.counters.snapshot().statuses.reset).toBe(1);
    expect(h.sandbox.counters.callsTo('POST', '/role/contacts')).toBe(2);
    expect(h.sandbox.state.contactsOf(h.sandbox.state.userByClientId('lo1')!.id)).toEqual([
      { kind: 'user', id: friend },
    ]);

    const checkInJob = job('lo', ['check_ins']);
    h.write({ 'lo-check_ins.csv': checkInsCsv([['lo-a', 'lo2', 'event', keynoteId('lo'), '', 'Hall']]) });
    h.sandbox.faults.set({ commitDrop: { next: 1 } });
    const lost = await h.run(checkInJob);
    expect(lost.counts.check_in).toEqual({ failed: 1 });
    const [failed] = await h.ledger.results(lost.run.id, { kinds: ['check_in'] });
    expect(failed).toMatchObject({ key: 'lo-a', errorCode: 'EVSYNC_CHECK_IN_OUTCOME_UNKNOWN', attempts: 1 });
    expect(failed?.errorMessage).toMatch(/not sent again to avoid a duplicate/);
    expect(h.sandbox.counters.callsTo('POST', '/check_in')).toBe(1);
    // The platform did record it: exactly one, the one whose answer was lost.
    expect(checkInsOf('lo2')).toHaveLength(1);
  });

  // The plan holds back a check-in whose answer was lost (§4.1 has nothing to look it up by),
  // run after run, each time naming the run to `evsync retry` once an operator has checked.
  it('the next runs do not post a check-in whose answer was lost, and name the run to retry', async () => {
    seedFriends('ln', 0);
    const file = job('ln', ['check_ins']);
    h.write({ 'ln-users.csv': usersCsv(people(1, 'ln')), 'ln-check_ins.csv': checkInsCsv([]) });
    expect((await h.run(file)).counts.user).toEqual({ created: 1 });
    h.write({ 'ln-check_ins.csv': checkInsCsv([['ln-a', 'ln1', 'event', keynoteId('ln'), '', 'Hall']]) });
    h.sandbox.faults.set({ commitDrop: { next: 1 } });
    const lost = await h.run(file);
    expect(lost.counts.check_in).toEqual({ failed: 1 });

    for (let again = 0; again < 2; again++) {
      const next = await h.run(file);
      expect(h.sandbox.counters.callsTo('POST', '/check_in')).toBe(1);
      expect(checkInsOf('ln1')).toHaveLength(1);
      expect(next.counts.check_in).toEqual({ failed: 1 });
      expect(next.plan?.counts.check_in).toEqual({ held: 1 });
      expect(next.plan?.notices.join('\n')).toMatch(/1 check-in is held back/);
      const [held] = await h.ledger.results(next.run.id, { kinds: ['check_in'] });
      expect(held).toMatchObject({ key: 'ln-a', action: 'failed', errorCode: 'EVSYNC_CHECK_IN_HELD_BACK' });
      expect(held?.errorMessage).toContain(
        `\`evsync retry ${lost.run.id} --client-id ln-a --resend-unknown\``,
      );
    }
  });
});
