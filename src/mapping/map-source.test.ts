import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RawRecord, Source, SourceItem } from '../sources/source-row.js';
import { loadMapping } from './load-mapping.js';
import { mapSource } from './map-source.js';
import type { HeaderReport, MappedItem, MapSourceOptions } from './mapped-item.js';

const dir = mkdtempSync(join(tmpdir(), 'evsync-map-source-'));
let files = 0;

async function run(
  yaml: string,
  rows: Array<RawRecord | SourceItem>,
  onHeader?: ((r: HeaderReport) => void) | MapSourceOptions,
): Promise<MappedItem[]> {
  const path = join(dir, `m${files++}.yaml`);
  writeFileSync(path, yaml);
  const mapping = await loadMapping(path, { vendor: 'svc' });
  const items0: SourceItem[] = rows.map((values, index) =>
    isSourceItem(values)
      ? values
      : { ok: true, origin: { source: 'mem.csv', row: index + 1, line: index + 2 }, values },
  );
  const source: Source = {
    description: 'memory',
    rows: async function* () {
      await Promise.resolve();
      yield* items0;
    },
  };
  const items: MappedItem[] = [];
  const options = typeof onHeader === 'function' ? { onHeader } : (onHeader ?? {});
  for await (const item of mapSource(source, mapping, options)) items.push(item);
  return items;
}

function isSourceItem(value: RawRecord | SourceItem): value is SourceItem {
  return typeof value.ok === 'boolean' && 'origin' in value;
}

const params = (item: MappedItem | undefined): Record<string, string> =>
  item?.type === 'intents' || item?.type === 'duplicate' ? (item.intents[0]?.params ?? {}) : {};

const USER = `
intents:
  - kind: user
    params:
      client_id: { template: 'eb-{Attendee #|Attendee no.}' }
      email: { column: [Email, E-mail Address], transforms: [lower] }
      first_name: [First Name, Vorname]
      last_name: { first_of: [Last Name, { const: '-' }] }
`;

describe('mapSource', () => {
  it('puts a single-line field on one line, and keeps the breaks of a bio', async () => {
    const yaml = `${USER}      company: Company
      bio: { column: Bio, transforms: [text_to_xhtml] }
`;
    // The CSV reader marks a row whose quoted values span lines.
    const [item] = await run(yaml, [
      {
        ok: true,
        origin: { source: 'mem.csv', row: 1, line: 2 },
        lineBreaks: true,
        values: {
          'Attendee #': '1',
          Email: 'a@x.org',
          'First Name': 'Ada\r\nMarie',
          'Last Name': 'L',
          Company: 'Analytical\rEngines \n Ltd',
          Bio: 'One.\r\nTwo.',
        },
      },
    ]);
    expect(params(item)['user[first_name]']).toBe('Ada Marie');
    expect(params(item)['user[employee_attributes][company_attributes][name]']).toBe(
      'Analytical Engines Ltd',
    );
    expect(params(item)['user[item_attributes][article_attributes][content]']).toContain('<br/>');
  });

  it('matches columns by alias, ignoring case, spaces and underscores', async () => {
    const items = await run(USER, [
      { 'attendee no.': '7', 'E-MAIL address': 'Ada@X.org', vorname: 'Ada', last_name: 'L' },
    ]);
    expect(params(items[0])).toEqual({
      client_id: 'eb-7',
      'user[svc_auth_attributes][email]': 'ada@x.org',
      'user[first_name]': 'Ada',
      'user[last_name]': 'L',
    });
    expect(items[0]).toMatchObject({
      type: 'intents',
      intents: [{ kind: 'user', key: 'eb-7', op: 'upsert', dependsOn: [] }],
    });
  });

  it('reports every problem of a row at once, naming row, line, column and value', async () => {
    const items = await run(USER, [{ 'Attendee #': '', Email: 'bob@', 'First Name': '' }]);
    expect(items[0]?.type).toBe('invalid');
    const messages = items[0]?.type === 'invalid' ? items[0].problems.map((p) => p.message) : [];
    expect(messages).toEqual(
      expect.arrayContaining([
        'row 1 (line 2), Email: "bob@" is not an e-mail address',
        expect.stringMatching(/^row 1 \(line 2\), First Name: .*required/),
        expect.stringMatching(/^row 1 \(line 2\), eb-\{Attendee #\}: the value is empty on this row/),
      ]),
    );
  });

  it('gives an invalid row its keys when they can be read, for mirror mode to keep', async () => {
    const items = await run(USER, [
      { 'Attendee #': '7', Email: 'bob@', 'First Name': 'Bob' },
      { 'Attendee #': '', Email: 'bob@', 'First Name': 'Bob' },
    ]);
    expect(items[0]).toMatchObject({ type: 'invalid', keys: [{ kind: 'user', key: 'eb-7' }] });
    // No client_id: nothing stands for the row.
    expect(items[1]?.type).toBe('invalid');
    expect(items[1] && 'keys' in items[1]).toBe(false);
  });

  it('gives no keys when the problem is in a param a key is made of', async () => {
    const yaml = `
intents:
  - kind: user
    params: { client_id: id, email: mail, first_name: f, last_name: l }
`;
    const items = await run(yaml, [{ id: 'x'.repeat(65), mail: 'a@b.org', f: 'A', l: 'B' }]);
    expect(items[0]?.type).toBe('invalid');
    expect(items[0] && 'keys' in items[0]).toBe(false);
  });

  it('treats a template with an empty placeholder as empty, not as "eb-", naming the column that is empty', async () => {
    const items = await run(USER, [{ 'Attendee #': ' ', Email: 'a@b.org', 'First Name': 'A' }]);
    expect(items[0]).toMatchObject({
      type: 'invalid',
      problems: [
        {
          field: 'eb-{Attendee #}',
          code: 'MAPPING_NO_KEY',
          message:
            'row 1 (line 2), eb-{Attendee #}: the value is empty on this row, but a user needs its client_id to be tracked between runs: fill it in the source',
        },
      ],
    });
  });

  it("names the column of an empty key: (check-ins), not the mapping's lack of one", async () => {
    const yaml = `
intents:
  - kind: check_in
    key: Scan ID
    params: { mode: { const: '1' }, center: center }
`;
    const items = await run(yaml, [{ 'Scan ID': '', center: '1.0,2.0' }]);
    expect(items[0]).toMatchObject({
      type: 'invalid',
      problems: [
        {
          field: 'Scan ID',
          code: 'MAPPING_NO_KEY',
          message: expect.stringMatching(/Scan ID: the value is empty on this row/) as string,
        },
      ],
    });
  });

  it('forwards source problems as invalid rows', async () => {
    const problem: SourceItem = {
      ok: false,
      origin: { source: 'x.csv', row: 4, line: 9 },
      code: 'CSV_RAGGED_ROW',
      message: 'has 3 fields, expected 4',
    };
    const items = await run(USER, [problem]);
    expect(items).toEqual([
      {
        type: 'invalid',
        origin: problem.origin,
        problems: [
          { field: '', code: 'CSV_RAGGED_ROW', message: 'row 4 (line 9): has 3 fields, expected 4' },
        ],
      },
    ]);
  });

  it('skips rows by when: with the reason, and reports the nearest miss', async () => {
    const yaml = `
intents:
  - kind: user
    when:
      - { column: Status, not_in: [Cancelled, refunded], reason: cancelled ticket }
    params: { client_id: id, email: mail, first_name: f, last_name: l }
`;
    const items = await run(yaml, [
      { id: '1', mail: 'a@b.org', f: 'A', l: 'B', Status: 'REFUNDED ' },
      { id: '2', mail: 'c@b.org', f: 'C', l: 'D', Status: 'Attending' },
    ]);
    expect(items[0]).toEqual({
      type: 'skipped',
      origin: { source: 'mem.csv', row: 1, line: 2 },
      reason: 'cancelled ticket (Status is "REFUNDED")',
      kind: 'user',
      // Read so that links naming the user are skipped on purpose too.
      keys: [{ kind: 'user', key: '1' }],
    });
    expect(items[1]?.type).toBe('intents');
  });

  it('refuses columns that differ only in case or punctuation, unless the mapping names one exactly', async () => {
    const yaml = (email: string): string => `
intents:
  - kind: user
    params: { client_id: id, email: ${email}, first_name: f, last_name: l }
`;
    const row = { id: 'u1', Email: 'old@x.org', 'E-mail': 'new@x.org', f: 'A', l: 'B' };
    await expect(run(yaml('email'), [row])).rejects.toMatchObject({
      code: 'MAPPING_AMBIGUOUS_COLUMN',
      message:
        'The source has 2 columns that all read as "email": "Email", "E-mail". Rename one in the source, or write the column exactly as the source does in the mapping.',
    });
    const exact = await run(yaml('E-mail'), [row]);
    expect(params(exact[0])['user[svc_auth_attributes][email]']).toBe('new@x.org');
  });

  describe('duplicates', () => {
    const rows = [
      { id: 'u1', mail: 'a@b.org', f: 'A', l: 'B' },
      { id: 'u2', mail: 'A@B.org', f: 'A', l: 'B' },
      // The same person with a new e-mail.
      { id: 'u1', mail: 'z@b.org', f: 'A', l: 'B' },
    ];
    const mapping = (policy: string): string => `
on_duplicate: ${policy}
unique: [email]
intents:
  - kind: user
    params: { client_id: id, email: mail, first_name: f, last_name: l }
`;

    it('error: the repeat is invalid, naming the first row', async () => {
      const items = await run(mapping('error'), rows);
      expect(items.map((i) => i.type)).toEqual(['intents', 'invalid', 'invalid']);
      expect(items[1]?.type === 'invalid' && items[1].problems[0]?.message).toBe(
        'row 2 (line 3): mail "A@B.org" was already used by row 1; set on_duplicate: first or last in the mapping to let one row win',
      );
      expect(items[2]?.type === 'invalid' && items[2].problems[0]?.message).toMatch(
        /user id "u1" was already used by row 1/,
      );
      // u2 shares an e-mail, not a key: if it was synced before, mirror mode keeps it.
      expect(items[1]).toMatchObject({ keys: [{ kind: 'user', key: 'u2' }] });
    });

    it('first: the repeat sends nothing', async () => {
      const items = await run(mapping('first'), rows);
      expect(items[2]).toMatchObject({
        type: 'duplicate',
        policy: 'first',
        firstRow: 1,
        intents: [],
        key: 'u1',
        kind: 'user',
      });
    });

    it('last: the repeat carries its intents and names the ones it replaces, even under another key', async () => {
      const items = await run(mapping('last'), [
        ...rows,
        // The same people again (another name would be another person: on_shared_email).
        { id: 'u3', mail: 'a@B.org', f: 'a', l: 'b' },
        { id: 'u4', mail: 'z@b.org', f: 'Z', l: 'B' },
      ]);
      expect(items.map((i) => (i.type === 'duplicate' ? i.replaces : i.type))).toEqual([
        'intents',
        // u2 repeats u1's e-mail: u1 goes.
        [{ kind: 'user', key: 'u1', row: 1 }],
        // u1 again, with a new e-mail: the first u1 is already gone, so nothing is replaced.
        [],
        // a@b.org again: u2 holds it now.
        [{ kind: 'user', key: 'u2', row: 2 }],
        // z@b.org is the second u1's.
        [{ kind: 'user', key: 'u1', row: 3 }],
      ]);
      expect(items[2]).toMatchObject({ type: 'duplicate', policy: 'last', firstRow: 1 });
      expect(params(items[2])['user[svc_auth_attributes][email]']).toBe('z@b.org');
    });

    describe('one key, another person (another name and another e-mail)', () => {
      const people = [
        { id: 't1', mail: 'amy@x.org', f: 'Amy', l: 'Ng' },
        { id: 't1', mail: 'zoe@y.org', f: 'Zoe', l: 'Li' },
        // The first person again, a corrected name: a duplicate.
        { id: 't1', mail: 'AMY@x.org', f: 'Amy', l: 'Ng-Park' },
        // A changed e-mail under the same name: a duplicate.
        { id: 't1', mail: 'amy.ng@x.org', f: 'amy', l: 'NG' },
      ];

      it.each(['first', 'last', 'error'])(
        '%s: the row is stopped and says whose key it is',
        async (policy) => {
          const items = await run(mapping(policy), people.slice(0, 2));
          expect(items[1]).toMatchObject({
            type: 'invalid',
            kind: 'user',
            keys: [{ kind: 'user', key: 't1' }],
          });
          expect(items[1]?.type === 'invalid' && items[1].problems[0]).toMatchObject({
            code: 'MAPPING_SHARED_KEY',
            message: expect.stringMatching(
              /^row 2 \(line 3\): client_id "t1" was already used by row 1 for another person \(another name and e-mail than "Zoe Li", "zoe@y.org"\): one id must not stand for two people; row 1 keeps it\./,
            ),
          });
          // Row 1 still holds the key: nothing replaced it.
          expect(items[1]).not.toHaveProperty('replaces');
        },
      );

      it('the same person under a corrected name or a changed e-mail stays a duplicate', async () => {
        const items = await run(mapping('first'), [people[0]!, people[2]!, people[3]!]);
        expect(items.map((i) => i.type)).toEqual(['intents', 'duplicate', 'duplicate']);
      });
    });
  });

  describe('shared e-mails (on_shared_email)', () => {
    // Ticket holders of one order: the buyer's e-mail on each; row 3 repeats row 1's person.
    const rows = [
      { id: 't1', mail: 'buyer@x.org', f: 'Anna', l: 'Muster' },
      { id: 't2', mail: 'BUYER@x.org', f: 'Ben', l: 'Muster' },
      { id: 't3', mail: 'buyer@x.org', f: 'anna', l: 'MUSTER' },
      { id: 't4', mail: '\u212Aate@x.org', f: 'Kate', l: 'K' },
    ];
    const mapping = (policy: string | undefined): string => `
on_duplicate: first
${policy ? `on_shared_email: ${policy}` : ''}
unique: [email]
intents:
  - kind: user
    params: { client_id: id, email: { column: mail, transforms: [lower] }, first_name: f, last_name: l }
`;

    it('error (the default): each other holder fails, naming the first row; the same person stays a duplicate', async () => {
      const items = await run(mapping(undefined), rows.slice(0, 3));
      expect(items.map((i) => i.type)).toEqual(['intents', 'invalid', 'duplicate']);
      expect(items[1]).toMatchObject({ kind: 'user', keys: [{ kind: 'user', key: 't2' }] });
      expect(items[1]?.type === 'invalid' && items[1].problems[0]).toMatchObject({
        code: 'MAPPING_SHARED_EMAIL',
        message: expect.stringMatching(
          /^row 2 \(line 3\): same e-mail "buyer@x.org" as row 1, a different person \("Ben Muster"\): the platform keys users by e-mail; /,
        ),
      });
    });

    it('first: the other holders are left out on purpose, with the reason', async () => {
      const items = await run(mapping('first'), rows.slice(0, 2));
      expect(items[1]).toMatchObject({ type: 'skipped', code: 'MAPPING_SHARED_EMAIL', kind: 'user' });
    });

    it('suffix: each other holder gets a plus-address of the shared e-mail, and says so', async () => {
      const notes: string[] = [];
      const items = await run(mapping('suffix'), rows.slice(0, 3), { onNotes: (n) => notes.push(...n) });
      expect(items.map((i) => i.type)).toEqual(['intents', 'intents', 'duplicate']);
      expect(params(items[1])['user[svc_auth_attributes][email]']).toBe('buyer+t2@x.org');
      expect(notes[0]).toMatch(
        /^1 user row\(s\) share an earlier row's e-mail .*row 2 \(line 3\) "Ben Muster": buyer\+t2@x\.org/,
      );
    });

    it('compares names without case, accents, punctuation or the final sigma, in any script', async () => {
      const items = await run(mapping(undefined), [
        { id: 'a1', mail: 'zoe@x.org', f: 'Zoé', l: 'Müller-Lęcka' },
        { id: 'a2', mail: 'ZOE@x.org', f: 'ZOE', l: 'muller lecka' },
        { id: 'a3', mail: 'zoe@x.org', f: 'Zoë', l: 'Møller' },
        { id: 'g1', mail: 'odos@x.org', f: 'Νίκος', l: 'ΟΔΟΣ' },
        { id: 'g2', mail: 'odos@x.org', f: 'ΝΙΚΟΣ', l: 'Οδος' },
        { id: 'h1', mail: 'ha@x.org', f: '𠮷野', l: '家' },
        { id: 'h2', mail: 'ha@x.org', f: '𠮷野', l: '家' },
      ]);
      // Møller is not Muller: ø has no accent to drop, it is another letter.
      expect(items.map((i) => i.type)).toEqual([
        'intents',
        'duplicate',
        'invalid',
        'intents',
        'duplicate',
        'intents',
        'duplicate',
      ]);
    });

    it('never folds the Kelvin sign into k: another address, refused as not ASCII', async () => {
      const items = await run(mapping(undefined), [
        { id: 'k1', mail: 'kate@x.org', f: 'Kate', l: 'K' },
        rows[3]!,
      ]);
      expect(items.map((i) => i.type)).toEqual(['intents', 'invalid']);
      expect(items[1]?.type === 'invalid' && items[1].problems[0]?.message).toMatch(/contains U\+212A/);
    });
  });

  it('builds custom_data JSON, lookups with defaults, lists and indexed params', async () => {
    const yaml = `
intents:
  - kind: event
    params:
      client_id: id
      name: title
      description: { const: 'x', transforms: [text_to_xhtml] }
      start: { column: start, transforms: [{ datetime: { timezone: Europe/Berlin } }] }
      finish: { column: end, transforms: [{ datetime: { timezone_column: tz, timezone: UTC, date_order: dmy } }] }
      tags: { column: tags, transforms: [{ split: ';' }, lower, { join: ',' }] }
      track: { column: kind, transforms: [{ lookup: { table: { WS: Workshops }, default: Talks } }] }
      speaker_client_ids: { column: speakers, transforms: [{ split: ',' }] }
`;
    const items = await run(yaml, [
      {
        id: 'e1',
        title: 'T',
        start: '2026-03-28 09:00',
        end: '28/03/2026 10:00',
        tz: 'Europe/London',
        tags: 'A; B;;',
        kind: 'ws',
        speakers: 'u1, u2',
      },
    ]);
    expect(params(items[0])).toEqual({
      client_id: 'e1',
      'event[item_attributes][display_value]': 'T',
      'event[item_attributes][article][content]': '<p>x</p>',
      'event[start]': '2026-03-28T09:00:00+01:00',
      'event[finish]': '2026-03-28T10:00:00+00:00',
      'event[item_attributes][tags_list]': 'a,b',
      'event[track_name]': 'Workshops',
      'event[speakers_attributes][0][user_client_id]': 'u1',
      'event[speakers_attributes][1][user_client_id]': 'u2',
    });
    expect(items[0]?.type === 'intents' && items[0].intents[0]?.dependsOn).toEqual([
      { kind: 'user', clientId: 'u1' },
      { kind: 'user', clientId: 'u2' },
    ]);
  });

  it('reports a lookup miss without a default, and a bad per-row time zone', async () => {
    const yaml = `
intents:
  - kind: event
    params:
      client_id: id
      name: { column: kind, transforms: [{ lookup: { table: { WS: Workshop } } }] }
      description: { const: x }
      start: { column: start, transforms: [{ datetime: { timezone_column: tz } }] }
      finish: { const: '2026-03-28T10:00:00Z' }
`;
    const items = await run(yaml, [{ id: 'e1', kind: 'Panel', start: '2026-03-28 09:00', tz: 'Mars/Base' }]);
    const problems = items[0]?.type === 'invalid' ? items[0].problems : [];
    expect(problems.map((p) => [p.field, p.code])).toEqual(
      expect.arrayContaining([
        ['kind', 'MAPPING_LOOKUP_MISS'],
        ['start', 'MAPPING_INVALID_TIMEZONE'],
      ]),
    );
  });

  it('reports a failed date transform once, not also as a missing param', async () => {
    const yaml = `
intents:
  - kind: event
    params:
      client_id: { column: id, transforms: [{ lookup: { table: { e1: ev-1 } } }] }
      name: title
      description: { const: x }
      start: { column: start, transforms: [{ datetime: { timezone: UTC } }] }
      finish: { column: end, transforms: [{ datetime: { timezone: UTC } }] }
`;
    const items = await run(yaml, [
      { id: 'e1', title: 'T', start: 'next tuesday', end: '2026-03-28 10:00' },
      { id: 'e2', title: 'T', start: '2026-03-28 09:00', end: '2026-03-28 10:00' },
    ]);
    const problems = (item: MappedItem | undefined): string[][] =>
      item?.type === 'invalid' ? item.problems.map((p) => [p.field, p.code]) : [];
    expect(problems(items[0])).toEqual([['start', 'MAPPING_INVALID_DATETIME']]);
    // A client_id that could not be mapped is not also "not mapped at all".
    expect(problems(items[1])).toEqual([['id', 'MAPPING_LOOKUP_MISS']]);
  });

  it('builds addresses and phones, dropping empty ones and their index', async () => {
    const yaml = `
preprocess: [trim, strip_excel]
intents:
  - kind: user
    params: { client_id: id, email: mail, first_name: f, last_name: l, custom_data: { json: { badge: badge, vip: { const: 'yes' } } } }
    phones:
      - { work_number: w }
    addresses:
      - { street: s1, city: c1, country_code: { column: k1, transforms: [country_code] } }
      - { street: s2, city: c2, state: st2, country_code: { column: k2, transforms: [country_code] } }
`;
    const items = await run(yaml, [
      {
        id: 'u',
        mail: 'a@b.org',
        f: 'A',
        l: 'B',
        w: '="0049"',
        s1: '',
        c1: '',
        k1: '',
        s2: 'Main St',
        c2: 'Austin',
        st2: 'TX',
        k2: 'usa',
        badge: '',
      },
    ]);
    expect(params(items[0])).toEqual({
      client_id: 'u',
      'user[svc_auth_attributes][email]': 'a@b.org',
      'user[first_name]': 'A',
      'user[last_name]': 'B',
      'user[account_attributes][profiles_attributes][0][custom_data]': '{"vip":"yes"}',
      'user[item_attributes][phones_attributes][0][work_number]': '0049',
      'user[account_attributes][addresses_attributes][0][street]': 'Main St',
      'user[account_attributes][addresses_attributes][0][city]': 'Austin',
      'user[account_attributes][addresses_attributes][0][state]': 'TX',
      'user[account_attributes][addresses_attributes][0][country_code]': 'US',
    });
  });

  it('checks a custom_data read from a column, not one built by json:', async () => {
    // `{json: …}` is JSON.stringify of an object and is not parsed again; a column is checked.
    const yaml = `
intents:
  - kind: user
    params: { client_id: id, email: mail, first_name: f, last_name: l, custom_data: { column: data, required: true } }
`;
    const items = await run(yaml, [{ id: 'u', mail: 'a@b.org', f: 'A', l: 'B', data: '[1, 2]' }]);
    expect(items[0]?.type === 'invalid' ? items[0].problems.map((p) => p.code) : items[0]?.type).toEqual([
      'INVALID_JSON_OBJECT',
    ]);
    const built = await run(yaml.replace('{ column: data, required: true }', '{ json: { d: data } }'), [
      { id: 'u', mail: 'a@b.org', f: 'A', l: 'B', data: '[1, 2]' },
    ]);
    expect(params(built[0])['user[account_attributes][profiles_attributes][0][custom_data]']).toBe(
      '{"d":"[1, 2]"}',
    );
  });

  it('takes the op from a column, and refuses an unknown action', async () => {
    const yaml = `
intents:
  - kind: rsvp
    op: { column: action, transforms: [{ default: add }] }
    params: { user_client_id: u, event_client_id: e }
`;
    const items = await run(yaml, [
      { u: 'u1', e: 'e1', action: '' },
      { u: 'u1', e: 'e2', action: 'Remove' },
      { u: 'u1', e: 'e3', action: 'perhaps' },
    ]);
    expect(items[0]).toMatchObject({
      type: 'intents',
      intents: [{ kind: 'rsvp', op: 'upsert', key: 'u1/e1' }],
    });
    expect(items[1]).toMatchObject({ type: 'intents', intents: [{ op: 'remove', key: 'u1/e2' }] });
    expect(items[2]).toMatchObject({
      type: 'invalid',
      problems: [{ field: 'action', code: 'MAPPING_INVALID_OP' }],
    });
  });

  it('groups schedule rows per user into one intent after the last row', async () => {
    const yaml = `
intents:
  - kind: schedule
    params: { user_client_id: user, event_client_id: event }
`;
    const items = await run(yaml, [
      { user: 'b', event: 'e1' },
      { user: 'a', event: 'e2' },
      { user: 'b', event: 'e3' },
      { user: 'b', event: 'e1' },
    ]);
    expect(items.map((i) => i.type)).toEqual([
      'grouped',
      'grouped',
      'grouped',
      'duplicate',
      'intents',
      'intents',
    ]);
    expect(items[4]).toMatchObject({
      type: 'intents',
      groupedRows: 2,
      origin: { row: 1 },
      intents: [
        {
          kind: 'schedule',
          key: 'b',
          params: { 'user[client_id]': 'b', 'event_client_ids[0]': 'e1', 'event_client_ids[1]': 'e3' },
        },
      ],
    });
    expect(items[5]).toMatchObject({ groupedRows: 1, intents: [{ key: 'a' }] });
  });

  it('closes the source when the consumer leaves early and when mapping a row throws', async () => {
    const path = join(dir, `m${files++}.yaml`);
    writeFileSync(path, USER);
    const mapping = await loadMapping(path, { vendor: 'svc' });
    let closed = 0;
    const source: Source = {
      description: 'memory',
      rows: async function* () {
        await Promise.resolve();
        try {
          for (let row = 1; row <= 3; row++)
            yield { ok: true, origin: { source: 'mem', row }, values: { 'Attendee #': `${row}` } };
        } finally {
          closed++;
        }
      },
    };
    for await (const item of mapSource(source, mapping)) if (item.origin.row === 1) break;
    expect(closed).toBe(1);
    const failing = {
      ...mapping,
      bind: () => {
        throw new Error('cannot bind');
      },
    };
    await expect(async () => {
      for await (const item of mapSource(source, failing)) void item;
    }).rejects.toThrow('cannot bind');
    expect(closed).toBe(2);
  });

  it('reports the columns the source lacks and those nobody reads', async () => {
    let report: HeaderReport | undefined;
    await run(USER, [{ 'Attendee #': '1', Email: 'a@b.org', Extra: 'x' }], (r) => (report = r));
    expect(report).toEqual({ missing: [['First Name', 'Vorname'], ['Last Name']], unused: ['Extra'] });
  });

  it('names the params a row leaves empty only because its source cannot carry their column', async () => {
    const yaml = `
intents:
  - kind: user
    params:
      client_id: { template: 'px-{id}' }
      email: email
      first_name: first_name
      last_name: last_name
      bio: { column: bio, transforms: [markdown_to_xhtml] }
      company: { first_of: [company, bio] }
      photo_url: photo_url
`;
    const row = (values: RawRecord, uncarried?: string[]): SourceItem => ({
      ok: true,
      origin: { source: 'schedule.xml', row: 1 },
      values: {
        id: '26',
        email: 'b@x.org',
        first_name: 'B',
        last_name: 'R',
        bio: '',
        company: '',
        ...values,
      },
      ...(uncarried ? { uncarried } : {}),
    });
    const intent = (item: MappedItem | undefined) => (item?.type === 'intents' ? item.intents[0] : undefined);
    const [xml] = await run(yaml, [row({ photo_url: 'https://x.org/b.png' }, ['bio', 'photo_url'])]);
    // A param read from several columns is taken as carried; a filled one needs no mark.
    expect(intent(xml)?.uncarried).toEqual(['user[item_attributes][article_attributes][content]']);
    const [json] = await run(yaml, [row({ photo_url: '' })]);
    expect(intent(json)).not.toHaveProperty('uncarried');
  });
});

describe('a row the ledger holds as synced (`syncedHash`)', () => {
  const rows = [
    { 'Attendee #': '1', Email: 'ann@example.org', 'First Name': 'Ann', 'Last Name': 'Lee' },
    // A value the checks refuse, synced as it is in the hook's answer below.
    { 'Attendee #': '2', Email: 'bob@', 'First Name': 'Bob', 'Last Name': 'Ray' },
    { 'Attendee #': '3', Email: 'cy@', 'First Name': 'Cy', 'Last Name': 'Fox' },
  ];
  const asked: string[] = [];
  const syncedHash: MapSourceOptions['syncedHash'] = (kind, key, op, p) => {
    asked.push(`${kind} ${key} ${op} ${p['user[svc_auth_attributes][email]']}`);
    return key === 'eb-3' ? undefined : `hash-of-${key}`;
  };

  it('is not checked again: its intent is the checked one, with the hash it was found by', async () => {
    asked.length = 0;
    const [ann, bob, cy] = await run(USER, rows, { syncedHash });
    expect(asked).toEqual([
      'user eb-1 upsert ann@example.org',
      'user eb-2 upsert bob@',
      'user eb-3 upsert cy@',
    ]);
    const [checked] = await run(USER, [rows[0]!]);
    const intent = ann?.type === 'intents' ? ann.intents[0] : undefined;
    const { knownHash, ...rest } = intent!;
    expect(rest).toEqual(checked?.type === 'intents' ? checked.intents[0] : undefined);
    expect(knownHash).toEqual({ params: intent!.params, op: 'upsert', hash: 'hash-of-eb-1' });
    // The platform took it so: checking it again would only cost the time.
    expect(bob?.type).toBe('intents');
    // Not synced as it is: checked, and refused.
    expect(cy?.type).toBe('invalid');
  });

  it('is checked whole when another draft of its row fails, so that every problem is said', async () => {
    const yaml = `
intents:
  - kind: user
    params: { client_id: { template: 'eb-{id}' }, email: mail, first_name: f, last_name: l }
  - kind: user
    params: { client_id: { template: 'buyer-{id}' }, email: buyer, first_name: f, last_name: l }
`;
    const [row] = await run(yaml, [{ id: '1', mail: 'ann@', buyer: 'bob@', f: 'A', l: 'B' }], {
      syncedHash: (_kind, key) => (key === 'eb-1' ? 'synced' : undefined),
    });
    expect(row?.type).toBe('invalid');
    const said = row?.type === 'invalid' ? row.problems.map((p) => p.message).join('\n') : '';
    expect(said).toContain('"ann@"');
    expect(said).toContain('"bob@"');
  });

  it('is checked whole when the mapping found a problem in it already', async () => {
    asked.length = 0;
    const yaml = `${USER}      company: { column: Company, transforms: [{ lookup: { table: { ACME: Acme Inc. } } }] }\n`;
    const [unknown] = await run(yaml, [{ ...rows[0]!, Company: 'Initech' }], { syncedHash });
    const intent = unknown?.type === 'intents' ? unknown.intents[0] : undefined;
    // Sent without the company, which it names: the checks ran, the ledger was not asked.
    expect(intent?.warnings).toEqual([expect.stringContaining('Initech')]);
    expect(intent).not.toHaveProperty('knownHash');
    expect(asked).toEqual([]);
  });
});

describe('a column the source lacks', () => {
  const MINE = `
intents:
  - kind: user
    when: { column: status, present: true, reason: no status }
    params:
      client_id: client_id
      email: email
      first_name: first_name
      last_name: last_name
`;
  const row = { client_id: 'a-1', 'E-mail address': 'ann@example.org', first_name: 'Ann', last_name: 'Lee' };

  it('is said missing from the header, with its columns and the fix, not as an empty value', async () => {
    const [item] = await run(MINE.replace(/ {4}when: .*\n/, ''), [row]);
    expect(item?.type).toBe('invalid');
    const problems = item?.type === 'invalid' ? item.problems : [];
    expect(problems).toEqual([
      {
        field: 'email',
        param: 'user[svc_auth_attributes][email]',
        code: 'MAPPING_COLUMN_MISSING',
        message:
          'row 1 (line 2), email: the source\'s header has no column "email", so no row has it: its columns are "client_id", "E-mail address", "first_name", "last_name". ' +
          'Rename "E-mail address" in the source to "email", or add the source\'s name for it to the mapping: column: ["email", "E-mail address"]',
      },
    ]);
  });

  it('says so for a key, and for a `present:` condition that leaves the row out', async () => {
    const { client_id: _key, ...keyless } = { ...row, email: 'ann@example.org', status: 'paid' };
    const [noKey] = await run(MINE, [{ ...keyless, ID: 'a-1' }]);
    expect(noKey?.type === 'invalid' ? noKey.problems[0] : undefined).toMatchObject({
      field: 'client_id',
      code: 'MAPPING_COLUMN_MISSING',
      message: expect.stringMatching(
        /^row 1 \(line 2\), client_id: the source's header has no column "client_id"/,
      ),
    });
    const [left] = await run(MINE, [{ ...row, email: 'ann@example.org' }]);
    expect(left?.type === 'skipped' ? left.reason : undefined).toMatch(
      /^no status \(the source's header has no column "status", so no row has it: its columns are "client_id", "E-mail address", "first_name", "last_name", "email"\. Rename the column in the source to "status"/,
    );
  });

  it('is not said of a column that is there with an empty value', async () => {
    const [item] = await run(MINE.replace(/ {4}when: .*\n/, ''), [{ ...row, email: '' }]);
    expect(item?.type === 'invalid' ? item.problems.map((p) => p.code) : []).toEqual(['REQUIRED']);
  });
});
