import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RawRecord, Source } from '../../sources/source-row.js';
import { loadMapping } from '../load-mapping.js';
import { mapSource } from '../map-source.js';
import { structuredCell } from './structured-cell.js';

const dir = mkdtempSync(join(tmpdir(), 'evsync-structured-'));
let files = 0;
const CUSTOM_DATA = 'user[account_attributes][profiles_attributes][0][custom_data]';

/** The custom_data param of each row, as sent (text). */
async function customData(yaml: string, rows: RawRecord[], allUnmapped = false): Promise<unknown[]> {
  const path = join(dir, `m${files++}.yaml`);
  writeFileSync(path, yaml);
  const mapping = await loadMapping(path, {
    vendor: 'svc',
    ...(allUnmapped ? { customData: { columns: 'all_unmapped' } as const } : {}),
  });
  const source: Source = {
    description: 'memory',
    rows: async function* () {
      await Promise.resolve();
      for (const [index, values] of rows.entries())
        yield { ok: true, origin: { source: 'db', row: index + 1 }, values };
    },
  };
  const sent: unknown[] = [];
  for await (const item of mapSource(source, mapping))
    sent.push(item.type === 'intents' ? item.intents[0]?.params[CUSTOM_DATA] : item.type);
  return sent;
}

const person = { id: 'u1', mail: 'a@b.org', f: 'Ada', l: 'Byron' };
// As the PostgreSQL and MySQL sources hand them over (src/sources/sql/plain-value.ts).
const cells = {
  prefs: { size: 'M', diet: ['vegan'] },
  age: 42,
  vip: true,
  tags: ['a', 'b'],
  nan: Number.NaN,
  none: {},
  nothing: null,
  text: '{"size":"M"}',
};

// A tester's find: a jsonb value inside custom_data arrived as an escaped string
// (`{"prefs":"{\"size\":\"M\"}"}`), numbers and booleans as strings.
describe('a SQL cell with a JSON type in custom_data', () => {
  it('keeps its JSON under json: keys that read a column as it is; transforms make text', async () => {
    const yaml = `
preprocess: [trim]
intents:
  - kind: user
    params:
      client_id: id
      email: mail
      first_name: f
      last_name: l
      custom_data:
        json: { prefs: prefs, age: [age], vip: { column: vip }, tags: tags, nan: nan, none: none,
                nothing: nothing, text: text, age_text: { column: age, transforms: [trim] } }
`;
    const [sent] = await customData(yaml, [{ ...person, ...cells }]);
    expect(sent).toBe(
      JSON.stringify({
        prefs: { size: 'M', diet: ['vegan'] },
        age: 42,
        vip: true,
        tags: ['a', 'b'],
        nan: 'NaN',
        text: '{"size":"M"}',
        age_text: '42',
      }),
    );
  });

  it('keeps it in the columns all_unmapped copies, and merged into a custom_data object', async () => {
    const yaml = `
intents:
  - kind: user
    params: { client_id: id, email: mail, first_name: f, last_name: l, custom_data: data }
`;
    const sent = await customData(
      yaml,
      [
        { ...person, data: { order: 7 }, prefs: cells.prefs, age: 42 },
        { ...person, id: 'u2', mail: 'c@d.org', data: null, prefs: null, age: 0 },
      ],
      true,
    );
    expect(sent).toEqual([
      JSON.stringify({ order: 7, prefs: { size: 'M', diet: ['vegan'] }, age: 42 }),
      JSON.stringify({ age: 0 }),
    ]);
  });

  it('reads a CSV cell as text, whatever it looks like', async () => {
    const yaml = `
intents:
  - kind: user
    params: { client_id: id, email: mail, first_name: f, last_name: l, custom_data: { json: { n: n, b: b } } }
`;
    expect(await customData(yaml, [{ ...person, n: '42', b: 'true' }])).toEqual(['{"n":"42","b":"true"}']);
  });
});

describe('structuredCell', () => {
  it('takes numbers, booleans, objects and arrays (empty ones as empty); not text, NaN, dates or bytes', () => {
    expect([0, false, [1], { a: null }, [], {}].map(structuredCell)).toEqual([
      0,
      false,
      [1],
      { a: null },
      '',
      '',
    ]);
    const none = ['', 'x', null, undefined, Number.NaN, Infinity, new Date(0), Buffer.from('x')];
    expect(none.map(structuredCell)).toEqual(none.map(() => undefined));
  });
});
