import type { RowResult } from '../plan/sync-plan.js';
import { describe, expect, it } from 'vitest';
import type { Intent } from '../../model/intent.js';
import { MERGED_CHUNK, PeopleMerger } from './merge-people.js';

const EMAIL = 'user[svc_auth_attributes][email]';

function user(key: string, source: string, params: Record<string, string>): Intent {
  return {
    kind: 'user',
    key,
    op: 'upsert',
    params: { client_id: key, ...params },
    origin: { source, row: 1 },
    dependsOn: [],
  };
}

async function merge(
  settings: ConstructorParameters<typeof PeopleMerger>[1],
  rows: Array<[step: number, intent: Intent]>,
  sharedAccounts?: readonly string[][],
): Promise<{ users: Intent[]; refused: RowResult[]; merger: PeopleMerger }> {
  const merger = new PeopleMerger(
    [{ name: 'tickets' }, { name: 'comp' }, { name: 'speakers' }],
    settings,
    'svc',
    sharedAccounts && { groups: () => Promise.resolve(sharedAccounts) },
  );
  for (const [step, intent] of rows) await merger.take(step, intent);
  const users: Intent[] = [];
  const refused: RowResult[] = [];
  for await (const batch of merger.merged()) {
    users.push(...batch.intents);
    refused.push(...batch.rowResults);
  }
  await merger.dispose();
  return { users, refused, merger };
}

const ticket = user('eb-1', 'tickets.csv', {
  [EMAIL]: 'ada@example.org',
  'user[first_name]': 'Ada',
  'user[membership]': 'member',
  'user[salutation]': '',
});
const comp = user('comp-1', 'comp.csv', {
  [EMAIL]: ' ADA@example.org',
  'user[first_name]': 'Augusta Ada',
  'user[membership]': 'press',
  'user[salutation]': 'Ms',
});
const speaker = user('spk-1', 'speakers.csv', { [EMAIL]: 'ada@example.org', 'user[membership]': 'speaker' });

describe('PeopleMerger', () => {
  it('keeps a field unsaid only when no step of the person can carry it', async () => {
    const BIO = 'user[item_attributes][article_attributes][content]';
    const fromXml = { ...speaker, uncarried: [BIO] };
    const both = await merge(undefined, [
      [0, { ...ticket, uncarried: [BIO] }],
      [2, fromXml],
    ]);
    expect(both.users[0]!.uncarried).toEqual([BIO]);
    // The tickets carry a bio and leave it empty: it is cleared, as any empty field.
    const one = await merge(undefined, [
      [0, ticket],
      [2, fromXml],
    ]);
    expect(one.users[0]).not.toHaveProperty('uncarried');
  });

  it("spills a row without the mapping's hash of its params, which the merged user does not keep", async () => {
    const found = { ...ticket, knownHash: { params: ticket.params, op: 'upsert' as const, hash: 'h' } };
    const { users } = await merge(undefined, [[0, found]]);
    expect(users).toHaveLength(1);
    expect(users[0]).not.toHaveProperty('knownHash');
    expect(users[0]?.params).toEqual(ticket.params);
  });

  it('without settings: the earlier step wins each field it fills, membership by rank', async () => {
    const { users, merger } = await merge(undefined, [
      [0, ticket],
      [1, comp],
      [2, speaker],
    ]);
    expect(users).toHaveLength(1);
    expect(users[0]!.key).toBe('eb-1');
    expect(users[0]!.aliases).toEqual(['comp-1', 'spk-1']);
    expect(users[0]!.params).toMatchObject({
      client_id: 'eb-1',
      'user[first_name]': 'Ada',
      'user[membership]': 'speaker',
      // Empty in tickets, filled in the comp list: the first non-empty value.
      'user[salutation]': 'Ms',
    });
    const report = merger.report();
    expect(report).toMatchObject({ people: 1, rows: 3, conflicts: 2 });
    expect(report.conflictExamples.map((c) => [c.field, c.won.step, c.by])).toEqual(
      expect.arrayContaining([
        ['user[first_name]', 'tickets', 'precedence'],
        ['user[membership]', 'speakers', 'membership rank'],
      ]),
    );
  });

  it('gives the same user whichever order the rows come in, and follows the job’s precedence and fields', async () => {
    const settings = { precedence: ['speakers', 'comp', 'tickets'], fields: { first_name: ['tickets'] } };
    const one = await merge(settings, [
      [0, ticket],
      [1, comp],
      [2, speaker],
    ]);
    const other = await merge(settings, [
      [2, speaker],
      [1, comp],
      [0, ticket],
    ]);
    expect(one.users).toEqual(other.users);
    expect(one.users[0]!.key).toBe('spk-1');
    expect(one.users[0]!.params).toMatchObject({
      'user[first_name]': 'Ada',
      'user[membership]': 'speaker',
      'user[salutation]': 'Ms',
    });
  });

  const COMPANY = 'user[employee_attributes][company_attributes][name]';
  const POSITION = 'user[employee_attributes][position]';
  const CITY = 'user[account_attributes][addresses_attributes][0][city]';
  const STREET = 'user[account_attributes][addresses_attributes][0][street]';
  const COUNTRY = 'user[account_attributes][addresses_attributes][0][country_code]';
  const CITY_2 = 'user[account_attributes][addresses_attributes][1][city]';
  const jo = (key: string, source: string, params: Record<string, string>): Intent =>
    user(key, source, { [EMAIL]: 'jo@example.org', 'user[first_name]': 'Jo', ...params });

  it('takes company and position from the step that wins the company, and names what it dropped', async () => {
    const { users, merger } = await merge(undefined, [
      [0, jo('t-1', 'tickets.csv', { [COMPANY]: 'Acme Corp', [POSITION]: '' })],
      [1, jo('c-1', 'comp.csv', { [COMPANY]: 'Presse AG', [POSITION]: 'Editor' })],
    ]);
    expect(users[0]!.params).toMatchObject({ [COMPANY]: 'Acme Corp', [POSITION]: '' });
    expect(merger.report().conflictExamples).toEqual([
      {
        key: 't-1',
        email: 'jo@example.org',
        field: 'employee',
        won: { step: 'tickets', value: 'company "Acme Corp"' },
        lost: [{ step: 'comp', value: 'company "Presse AG", position "Editor"' }],
        by: 'precedence',
        whole: true,
      },
    ]);
  });

  it('keeps a position out that only a losing step gives; a step saying less is no conflict', async () => {
    const { users, merger } = await merge(undefined, [
      [0, jo('t-1', 'tickets.csv', { [COMPANY]: 'Acme Corp' })],
      [1, jo('c-1', 'comp.csv', { [COMPANY]: 'Acme Corp', [POSITION]: 'Editor' })],
      [2, jo('s-1', 'speakers.csv', { [COMPANY]: 'Acme Corp' })],
    ]);
    expect(users[0]!.params).not.toHaveProperty([POSITION]);
    expect(merger.report().conflictExamples.map((c) => [c.field, c.lost.map((l) => l.step)])).toEqual([
      ['employee', ['comp']],
    ]);
    const less = await merge(undefined, [
      [0, jo('t-1', 'tickets.csv', { [COMPANY]: 'Acme Corp', [POSITION]: 'Editor' })],
      [1, jo('c-1', 'comp.csv', { [COMPANY]: 'Acme Corp' })],
    ]);
    expect(less.users[0]!.params).toMatchObject({ [COMPANY]: 'Acme Corp', [POSITION]: 'Editor' });
    expect(less.merger.report().conflicts).toBe(0);
  });

  it('takes the employee of the only step that gives one, and follows the job’s order for it', async () => {
    const only = await merge(undefined, [
      [0, jo('t-1', 'tickets.csv', { [COMPANY]: '', [POSITION]: '' })],
      [1, jo('c-1', 'comp.csv', { [COMPANY]: 'Presse AG', [POSITION]: 'Editor' })],
    ]);
    expect(only.users[0]!.params).toMatchObject({ [COMPANY]: 'Presse AG', [POSITION]: 'Editor' });
    expect(only.merger.report().conflicts).toBe(0);
    const ordered = await merge({ fields: { employee: ['comp'] } }, [
      [0, jo('t-1', 'tickets.csv', { [COMPANY]: 'Acme Corp' })],
      [1, jo('c-1', 'comp.csv', { [COMPANY]: 'Presse AG', [POSITION]: 'Editor' })],
    ]);
    expect(ordered.users[0]!.params).toMatchObject({ [COMPANY]: 'Presse AG', [POSITION]: 'Editor' });
    expect(ordered.merger.report().conflictExamples[0]).toMatchObject({
      won: { step: 'comp' },
      lost: [{ step: 'tickets', value: 'company "Acme Corp"' }],
    });
  });

  it('takes the addresses whole from one step, every entry', async () => {
    const { users, merger } = await merge(undefined, [
      [0, jo('t-1', 'tickets.csv', { [CITY]: 'Berlin', [COUNTRY]: 'DE' })],
      [1, jo('c-1', 'comp.csv', { [STREET]: 'Rue 1', [CITY]: 'Paris', [COUNTRY]: 'FR', [CITY_2]: 'Lyon' })],
    ]);
    expect(users[0]!.params).toMatchObject({ [CITY]: 'Berlin', [COUNTRY]: 'DE' });
    expect(users[0]!.params).not.toHaveProperty([STREET]);
    expect(users[0]!.params).not.toHaveProperty([CITY_2]);
    expect(merger.report().conflictExamples[0]).toMatchObject({
      field: 'addresses',
      lost: [{ step: 'comp', value: 'city "Paris", country_code "FR", street "Rue 1", #2 city "Lyon"' }],
    });
  });

  const person = (key: string, source: string, email: string, first: string, last: string): Intent =>
    user(key, source, { [EMAIL]: email, 'user[first_name]': first, 'user[last_name]': last });

  it('refuses both people one client_id is given to, naming both rows: nobody is dropped', async () => {
    const { users, refused, merger } = await merge(undefined, [
      [0, person('17', 'tickets.csv', 'alice@example.org', 'Alice', 'T')],
      [1, person('17', 'comp.csv', 'bob@example.org', 'Bob', 'C')],
      [0, person('18', 'tickets.csv', 'carol@example.org', 'Carol', 'D')],
    ]);
    expect(users.map((u) => u.key)).toEqual(['18']);
    expect(refused.map((r) => `${r.key} ${r.errorCode} ${r.action}`).sort()).toEqual([
      '17 EVSYNC_ONE_KEY_TWO_PEOPLE failed',
      '17#row1 EVSYNC_ONE_KEY_TWO_PEOPLE failed',
    ]);
    for (const row of refused) {
      expect(row.message).toContain('tickets: tickets.csv row 1 (alice@example.org, "Alice T")');
      expect(row.message).toContain('comp: comp.csv row 1 (bob@example.org, "Bob C")');
    }
    expect(merger.report()).toMatchObject({ refused: 2 });
  });

  it('refuses the people of keys an earlier run merged into one account, once their e-mails differ', async () => {
    const rows: Array<[number, Intent]> = [
      [0, person('T-1', 'tickets.csv', 'ann@example.org', 'Ann', 'Arbor')],
      [1, person('C-1', 'comp.csv', 'ann.work@example.org', 'Ann', 'Arbor')],
      [0, person('T-2', 'tickets.csv', 'bob@example.org', 'Bob', 'Baker')],
      [1, person('C-2', 'comp.csv', 'bob@example.org', 'Bob', 'Baker')],
    ];
    const shared = [
      ['C-1', 'T-1'],
      ['C-2', 'T-2'],
      // A key this run does not have: nothing to compare it with.
      ['C-3', 'T-1'],
    ];
    const { users, refused, merger } = await merge(undefined, rows, shared);
    expect(users.map((u) => [u.key, u.aliases])).toEqual([['T-2', ['C-2']]]);
    expect(refused.map((r) => `${r.key} ${r.errorCode}`).sort()).toEqual([
      'C-1 EVSYNC_MERGED_PERSON_SPLIT',
      'T-1 EVSYNC_MERGED_PERSON_SPLIT',
    ]);
    expect(refused[0]?.message).toContain('client_ids "C-1" and "T-1" are one platform user');
    expect(refused[0]?.message).toContain('comp: comp.csv row 1 (ann.work@example.org, "Ann Arbor")');
    expect(merger.report()).toMatchObject({ refused: 2 });
    // Without the id map's groups, the two are planned apart, as before.
    expect((await merge(undefined, rows)).users.map((u) => u.key).sort()).toEqual(['C-1', 'T-1', 'T-2']);
  });

  it('refuses a cycle of ids across three steps whole, every row named', async () => {
    const { users, refused } = await merge(undefined, [
      [0, person('A', 'one.csv', 'e1@example.org', 'Ann', 'One')],
      [0, person('B', 'one.csv', 'e2@example.org', 'Ben', 'Two')],
      [0, person('C', 'one.csv', 'e3@example.org', 'Cid', 'Three')],
      [1, person('B', 'two.csv', 'e1@example.org', 'Ann', 'One')],
      [1, person('C', 'two.csv', 'e2@example.org', 'Ben', 'Two')],
      [2, person('A', 'three.csv', 'e3@example.org', 'Cid', 'Three')],
    ]);
    expect(users).toEqual([]);
    expect(refused).toHaveLength(6);
    expect(new Set(refused.map((r) => r.key)).size).toBe(6);
  });

  it('refuses a row that gives the person’s e-mail under another name; the first row’s person stays', async () => {
    const { users, refused } = await merge(undefined, [
      [0, person('eb-1', 'tickets.csv', 'ada@example.org', 'Ada', 'Lovelace')],
      [1, person('comp-1', 'comp.csv', 'ada@example.org', 'A.', 'Lovelace')],
      [2, person('spk-9', 'speakers.csv', 'ada@example.org', 'Thomas', 'Grimes')],
    ]);
    expect(users.map((u) => [u.key, u.aliases])).toEqual([['eb-1', ['comp-1']]]);
    expect(refused.map((r) => [r.key, r.errorCode])).toEqual([['spk-9', 'MAPPING_SHARED_EMAIL']]);
    expect(refused[0]!.message).toMatch(
      /^speakers: speakers.csv row 1 \(ada@example.org, "Thomas Grimes"\) gives the e-mail of tickets/,
    );
  });

  it('does not join two people through an initial the first row gives', async () => {
    const { users, refused } = await merge(undefined, [
      [0, person('tito-1', 'tickets.csv', 'lee@example.org', 'A.', 'Lee')],
      [1, person('C-1', 'comp.csv', 'lee@example.org', 'Ann', 'Lee')],
      [2, person('S-1', 'speakers.csv', 'lee@example.org', 'Abe', 'Lee')],
    ]);
    expect(users.map((u) => [u.key, u.aliases])).toEqual([['tito-1', ['C-1']]]);
    expect(refused.map((r) => [r.key, r.errorCode])).toEqual([['S-1', 'MAPPING_SHARED_EMAIL']]);
    expect(refused[0]!.message).toContain(
      'speakers: speakers.csv row 1 (lee@example.org, "Abe Lee") gives the e-mail of comp: comp.csv row 1 (lee@example.org, "Ann Lee") to another person',
    );
  });

  it('leaves a person of one step, and users without an e-mail, as they are', async () => {
    const lone = user('eb-2', 'tickets.csv', { [EMAIL]: 'grace@example.org' });
    const { users, merger } = await merge(undefined, [[0, lone]]);
    expect(users).toEqual([lone]);
    expect(merger.report().people).toBe(0);
    expect(merger.accepts(user('x', 'a.csv', { 'user[first_name]': 'X' }))).toBe(false);
  });
  it('hands the merged users over a plan chunk at a time, every person once', async () => {
    const merger = new PeopleMerger([{ name: 'a' }, { name: 'b' }], undefined, 'svc');
    const people = MERGED_CHUNK * 3;
    for (let n = 0; n < people; n++) {
      await merger.take(0, user(`a-${n}`, 'a.csv', { [EMAIL]: `p${n}@example.org` }));
      if (n % 10 === 0) await merger.take(1, user(`b-${n}`, 'b.csv', { [EMAIL]: `p${n}@example.org` }));
    }
    const keys = new Set<string>();
    for await (const batch of merger.merged()) {
      expect(batch.intents.length).toBeLessThanOrEqual(MERGED_CHUNK);
      for (const intent of batch.intents) keys.add(intent.key);
    }
    await merger.dispose();
    expect(keys.size).toBe(people);
    expect(merger.report()).toMatchObject({ people: people / 10, rows: (people / 10) * 2 });
  });
});
