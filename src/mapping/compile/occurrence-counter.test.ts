import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RawRecord, Source } from '../../sources/source-row.js';
import { loadMapping, type LoadMappingOptions } from '../load-mapping.js';
import { mapSource } from '../map-source.js';
import type { MappedItem } from '../mapped-item.js';

const dir = mkdtempSync(join(tmpdir(), 'evsync-occurrence-'));
let files = 0;

async function mapRows(
  yaml: string,
  rows: RawRecord[],
  options: LoadMappingOptions = {},
): Promise<MappedItem[]> {
  const path = join(dir, `m${files++}.yaml`);
  writeFileSync(path, yaml);
  const mapping = await loadMapping(path, { vendor: 'svc', ...options });
  const source: Source = {
    description: 'memory',
    rows: async function* () {
      await Promise.resolve();
      for (const [index, values] of rows.entries())
        yield { ok: true, origin: { source: 'mem.csv', row: index + 1, line: index + 2 }, values };
    },
  };
  const items: MappedItem[] = [];
  for await (const item of mapSource(source, mapping)) items.push(item);
  return items;
}

const keyOf = (item: MappedItem): string =>
  item.type === 'intents' ? (item.intents[0]?.key ?? '') : item.type;

const MAPPING = `
intents:
  - kind: user
    when: { column: Status, not_in: [Cancelled] }
    params:
      client_id: { template: 'eb-{Order no.}-{#Order no.}' }
      email: Email
      first_name: First
      last_name: Last
`;

describe('{#Column}: a row’s place among the rows of the same value', () => {
  it('counts every row, a cancelled one too, so later tickets keep their keys', async () => {
    const row = (order: string, email: string, status = 'Attending'): RawRecord => ({
      'Order no.': order,
      Email: email,
      First: 'A',
      Last: 'B',
      Status: status,
    });
    const items = await mapRows(MAPPING, [
      row('7', 'a@x.org'),
      row('8', 'b@x.org'),
      row('7', 'c@x.org', 'Cancelled'),
      row('7', 'd@x.org'),
      row('', 'e@x.org'),
    ]);
    expect(items.map(keyOf)).toEqual(['eb-7-1', 'eb-8-1', 'skipped', 'eb-7-3', 'invalid']);
  });

  it('is not read, nor counted, while an earlier choice gives the key', async () => {
    const fallback = MAPPING.replace(
      "client_id: { template: 'eb-{Order no.}-{#Order no.}' }",
      "client_id: { first_of: [{ template: 'eb-{Attendee no.}' }, { template: 'eb-{Order no.}-{#Order no.}' }] }",
    );
    const row = (order: string, attendee: string, email: string): RawRecord => ({
      'Order no.': order,
      'Attendee no.': attendee,
      Email: email,
      First: 'A',
      Last: 'B',
      Status: 'Attending',
    });
    const items = await mapRows(fallback, [
      row('7', '70', 'a@x.org'),
      row('7', '', 'b@x.org'),
      row('7', '', 'c@x.org'),
    ]);
    // The rows before the first without an attendee number are not counted.
    expect(items.map(keyOf)).toEqual(['eb-70', 'eb-7-1', 'eb-7-2']);
  });
});

describe('custom_data: { columns: all_unmapped }', () => {
  const users = `
intents:
  - kind: user
    params:
      client_id: id
      email: email
      first_name: first
      last_name: last
      custom_data: { json: { order: order } }
`;
  const row = {
    id: '1',
    email: 'a@x.org',
    first: 'A',
    last: 'B',
    order: 'O-1',
    'T-shirt size': 'M',
    Diet: '',
  };

  it('puts the columns no param reads into custom_data, by their header', async () => {
    const [item] = await mapRows(users, [row], { customData: { columns: 'all_unmapped' } });
    const params = item?.type === 'intents' ? item.intents[0]?.params : {};
    expect(
      JSON.parse(params?.['user[account_attributes][profiles_attributes][0][custom_data]'] ?? '{}'),
    ).toEqual({
      order: 'O-1',
      'T-shirt size': 'M',
    });
  });

  it('leaves them out unless the step asks', async () => {
    const [item] = await mapRows(users, [row]);
    const params = item?.type === 'intents' ? item.intents[0]?.params : {};
    expect(params?.['user[account_attributes][profiles_attributes][0][custom_data]']).toBe('{"order":"O-1"}');
  });
});
