import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RawRecord, Source } from '../../sources/source-row.js';
import { loadMapping } from '../load-mapping.js';
import { mapSource } from '../map-source.js';
import type { HeaderReport, MappedItem } from '../mapped-item.js';
import { unmappedColumnsNotes } from '../unmapped-columns-note.js';

const dir = mkdtempSync(join(tmpdir(), 'evsync-unmapped-'));
let files = 0;
const CUSTOM_DATA = 'user[account_attributes][profiles_attributes][0][custom_data]';
const ALL_UNMAPPED = { customData: { columns: 'all_unmapped' } } as const;

interface Mapped {
  items: MappedItem[];
  header: HeaderReport | undefined;
  notes: readonly string[];
}

async function mapRows(mapping: string, rows: RawRecord[], keep = true): Promise<Mapped> {
  let name = mapping;
  if (mapping.includes('\n')) {
    name = join(dir, `m${files++}.yaml`);
    writeFileSync(name, mapping);
  }
  const loaded = await loadMapping(name, { vendor: 'svc', ...(keep ? ALL_UNMAPPED : {}) });
  const source: Source = {
    description: 'memory',
    rows: async function* () {
      await Promise.resolve();
      for (const [index, values] of rows.entries())
        yield { ok: true, origin: { source: 'mem.csv', row: index + 1, line: index + 2 }, values };
    },
  };
  const items: MappedItem[] = [];
  let header: HeaderReport | undefined;
  let notes: readonly string[] = [];
  for await (const item of mapSource(source, loaded, {
    onHeader: (report) => (header = report),
    onNotes: (said) => (notes = said),
  }))
    items.push(item);
  return { items, header, notes };
}

function customData(item: MappedItem | undefined): unknown {
  if (item?.type !== 'intents') return item?.type;
  const text = item.intents[0]?.params[CUSTOM_DATA];
  return text === undefined ? undefined : JSON.parse(text);
}

const person = { client_id: 'c1', email: 'cd1@example.com', first_name: 'Cara', last_name: 'Dee' };

// A tester's find: the shipped `users` mapping's custom_data is one column, and with it the
// unmapped columns were dropped while validate, plan and run said they were kept.
describe('custom_data: { columns: all_unmapped } with a custom_data that is one column', () => {
  it('keeps the columns when the source has no custom_data column, and says so', async () => {
    const { items, header } = await mapRows('users', [{ ...person, tshirt: 'M' }]);
    expect(customData(items[0])).toEqual({ tshirt: 'M' });
    expect(unmappedColumnsNotes(header)).toEqual([
      `kept in each user's custom_data (custom_data: { columns: all_unmapped }): "tshirt"`,
    ]);
  });

  it("merges them into the column's object, whose keys win, and says which key it kept", async () => {
    const { items, header, notes } = await mapRows('users', [
      { ...person, tshirt: 'M', custom_data: '{"vip": true, "tshirt": "L"}' },
      { ...person, client_id: 'c2', email: 'c2@example.com', tshirt: 'S', custom_data: '' },
      { ...person, client_id: 'c3', email: 'c3@example.com', tshirt: 'L', custom_data: '{"tshirt": "L"}' },
    ]);
    expect(items.map(customData)).toEqual([{ vip: true, tshirt: 'L' }, { tshirt: 'S' }, { tshirt: 'L' }]);
    expect(unmappedColumnsNotes(header)).toEqual([
      `kept in each user's custom_data (custom_data: { columns: all_unmapped }), merged into the JSON object ` +
        `in the column "custom_data", whose keys win over a column of the same name: "tshirt"`,
    ]);
    // Only the row whose object and column disagree lost a value.
    expect(notes).toEqual([
      expect.stringMatching(/^custom_data: on 1 row the JSON object in "custom_data" .* "tshirt" \(1 row\)/),
    ]);
  });

  it('never drops a custom_data column that is no JSON object: the row says so', async () => {
    const { items } = await mapRows('users', [{ ...person, tshirt: 'M', custom_data: '[1, 2]' }]);
    const item = items[0];
    expect(item?.type).toBe('intents');
    if (item?.type !== 'intents') return;
    expect(item.intents[0]?.params[CUSTOM_DATA]).toBeUndefined();
    expect(item.warnings?.map((warning) => [warning.code, warning.message])).toEqual([
      ['INVALID_JSON_OBJECT', expect.stringContaining('"[1, 2]" is an array; expected a JSON object')],
    ]);
  });

  it('keeps a custom_data column marked required: a bad one then fails the row', async () => {
    const yaml = `
intents:
  - kind: user
    params: { client_id: id, email: mail, first_name: f, last_name: l, custom_data: { column: data, required: true } }
`;
    const row = { id: 'u', mail: 'a@b.org', f: 'A', l: 'B', extra: 'x' };
    const good = await mapRows(yaml, [{ ...row, data: '{"a": 1}' }]);
    expect(customData(good.items[0])).toEqual({ a: 1, extra: 'x' });
    const bad = await mapRows(yaml, [{ ...row, data: 'not json' }]);
    expect(bad.items[0]?.type).toBe('invalid');
  });
});

describe('custom_data: { columns: all_unmapped } leaves out', () => {
  it('the columns a param reads, under any alias, and the columns named like a secret', async () => {
    const { items, header } = await mapRows('users', [
      { ...person, 'E-Mail': 'x', tshirt: 'M', password: 'hunter2', 'Ticket secret': 's3', api_token: 't' },
    ]);
    expect(customData(items[0])).toEqual({ tshirt: 'M' });
    expect(header?.customData).toEqual({
      kept: ['tshirt'],
      leftOut: ['password', 'Ticket secret', 'api_token'].map((column) => ({
        column,
        reason: 'named like a secret: a password or a token must not reach a profile',
      })),
    });
    expect(unmappedColumnsNotes(header)[1]).toMatch(
      /^not kept in custom_data, although the step asks for all unmapped columns: "password", "Ticket secret", "api_token" \(named like a secret/,
    );
  });

  it('links and codes that open a ticket, an order or a check-in, and IP addresses', async () => {
    // Tito's and Luma's headers: whoever holds the link or the QR code changes the ticket or
    // checks in with it; an answer that is a link of one's own stays.
    const opens = ['Unique Ticket URL', 'Unique Order URL', 'qr_code_url', 'Check-in link'];
    const row: Record<string, string> = {
      ...person,
      'Order IP': '203.0.113.7',
      "What's your LinkedIn?": 'linkedin.com/in/cara',
      'Link to your website': 'cara.example',
      Shipping: 'no',
    };
    for (const column of opens) row[column] = 'https://ti.to/o/x';
    const { items, header } = await mapRows('users', [row]);
    expect(customData(items[0])).toEqual({
      "What's your LinkedIn?": 'linkedin.com/in/cara',
      'Link to your website': 'cara.example',
      Shipping: 'no',
    });
    expect(header?.customData?.leftOut).toEqual([
      { column: 'Order IP', reason: 'an IP address: personal data a profile has no use for' },
      ...opens.map((column) => ({
        column,
        reason:
          'a link or code that opens a ticket, an order or a check-in: whoever reads the profile could use it',
      })),
    ]);
  });

  it("the buyer's personal data and payment references, which would reach every holder", async () => {
    // Tito's order columns beside each ticket: the buyer's phone on every holder's profile.
    const row = {
      ...person,
      'Order Phone Number': '+353 1 555 0000',
      'Order Company Name': 'Buyer Private Ltd',
      'Order Name': 'Siobhán Buyer',
      'Buyer E-mail': 'buyer@example.org',
      'Payment Reference': 'ch_QW3R',
      'Order Discount Code': 'EARLY',
      'Ticket Company Name': 'Holder Co',
    };
    const { items, header } = await mapRows('users', [row]);
    expect(customData(items[0])).toEqual({
      'Order Discount Code': 'EARLY',
      'Ticket Company Name': 'Holder Co',
    });
    expect(header?.customData?.leftOut.map((left) => [left.column, left.reason.split(':')[0]])).toEqual([
      ['Order Phone Number', "the buyer's, not the ticket holder's"],
      ['Order Company Name', "the buyer's, not the ticket holder's"],
      ['Order Name', "the buyer's, not the ticket holder's"],
      ['Buyer E-mail', "the buyer's, not the ticket holder's"],
      ['Payment Reference', 'a payment reference'],
    ]);
  });

  it('the columns the mapping names in not_custom_data, however their header is spelt', async () => {
    const yaml = `
not_custom_data: [Phone number]
intents:
  - kind: user
    params: { client_id: id, email: mail, first_name: f, last_name: l }
`;
    const { items, header } = await mapRows(yaml, [
      { id: 'u', mail: 'a@b.org', f: 'A', l: 'B', 'PHONE NUMBER': '+49 30 1234567', diet: 'vegan' },
    ]);
    expect(customData(items[0])).toEqual({ diet: 'vegan' });
    expect(header?.customData?.leftOut).toEqual([
      {
        column: 'PHONE NUMBER',
        reason: "the mapping's not_custom_data: not the ticket holder's (an order's, say)",
      },
    ]);
  });

  it("a column whose name is a key of the mapping's own json: and says so", async () => {
    const yaml = `
intents:
  - kind: user
    params: { client_id: id, email: mail, first_name: f, last_name: l, custom_data: { json: { order: ord } } }
`;
    const { items, header } = await mapRows(yaml, [
      { id: 'u', mail: 'a@b.org', f: 'A', l: 'B', ord: 'O-1', order: 'other', diet: 'vegan' },
    ]);
    expect(customData(items[0])).toEqual({ order: 'O-1', diet: 'vegan' });
    expect(header?.customData?.leftOut).toEqual([
      { column: 'order', reason: "the mapping's custom_data already has a key of that name" },
    ]);
  });

  it('every column of a mapping that makes no users, and does not claim to keep them', async () => {
    const yaml = `
intents:
  - kind: speaker
    params: { event_client_id: e, user_client_id: u }
`;
    const { header } = await mapRows(yaml, [{ e: 'e1', u: 'u1', room: 'A' }]);
    expect(unmappedColumnsNotes(header)).toEqual([
      'not kept in custom_data, although the step asks for all unmapped columns: "room" (the mapping makes no users)',
    ]);
  });

  it('nothing unless the step asks, and then the note says how to keep them', async () => {
    const { items, header } = await mapRows('users', [{ ...person, tshirt: 'M' }], false);
    expect(customData(items[0])).toBeUndefined();
    expect(unmappedColumnsNotes(header)).toEqual([
      `no mapping reads the column "tshirt": to keep them in each user's custom_data, set custom_data: { columns: all_unmapped } on the job step`,
    ]);
  });
});
