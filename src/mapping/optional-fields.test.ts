import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RawRecord, Source, SourceItem } from '../sources/source-row.js';
import { loadMapping } from './load-mapping.js';
import { mapSource } from './map-source.js';
import { failingProblem, type MappedItem } from './mapped-item.js';
import { ValidationSummary } from './validate/validation-summary.js';

const dir = mkdtempSync(join(tmpdir(), 'evsync-optional-fields-'));
let files = 0;

async function run(yaml: string, rows: RawRecord[]): Promise<MappedItem[]> {
  const path = join(dir, `m${files++}.yaml`);
  writeFileSync(path, yaml);
  const mapping = await loadMapping(path, { vendor: 'svc' });
  const items0: SourceItem[] = rows.map((values, index) => ({
    ok: true,
    origin: { source: 'mem.csv', row: index + 1, line: index + 2 },
    values,
  }));
  const source: Source = {
    description: 'memory',
    rows: async function* () {
      await Promise.resolve();
      yield* items0;
    },
  };
  const items: MappedItem[] = [];
  for await (const item of mapSource(source, mapping)) items.push(item);
  return items;
}

const mappingWith = (extra: string, addresses = ''): string => `
intents:
  - kind: user
    params:
      client_id: id
      email: email
      first_name: first
      last_name: last
${extra}
${addresses}
`;

const person = { id: '1', email: 'ada@x.org', first: 'Ada', last: 'Lovelace' };

describe('optional fields', () => {
  it('sends the person without a link that is no URL, with a warning naming row, column and value', async () => {
    const [item] = await run(mappingWith('      twitter: social'), [{ ...person, social: 'Ada on X' }]);
    expect(item?.type).toBe('intents');
    if (item?.type !== 'intents') return;
    expect(item.intents[0]?.params).toEqual({
      client_id: '1',
      'user[svc_auth_attributes][email]': 'ada@x.org',
      'user[first_name]': 'Ada',
      'user[last_name]': 'Lovelace',
    });
    expect(item.warnings?.map((w) => w.message)).toEqual([
      expect.stringMatching(/^row 1 \(line 2\), social: .*"Ada on X".*: left out$/),
    ]);
    expect(item.intents[0]?.warnings).toEqual(item.warnings?.map((w) => w.message));
    // What an earlier run synced is kept, not cleared, for a value this export got wrong.
    expect(item.intents[0]?.uncarried).toEqual(['user[account_attributes][web_links][twitter]']);
  });

  it('turns handles into links with handle_url, and leaves free text out', async () => {
    const items = await run(
      mappingWith('      twitter: { column: social, transforms: [{ handle_url: twitter }] }'),
      [
        { ...person, social: '@ada' },
        { ...person, id: '2', email: 'b@x.org', social: 'x.com/bob' },
        { ...person, id: '3', email: 'c@x.org', social: 'ask me at the desk' },
      ],
    );
    expect(items.map((item) => item.type)).toEqual(['intents', 'intents', 'intents']);
    const twitter = (item: MappedItem | undefined): string | undefined =>
      item?.type === 'intents'
        ? item.intents[0]?.params['user[account_attributes][web_links][twitter]']
        : '?';
    expect(items.map(twitter)).toEqual(['https://x.com/ada', 'https://x.com/bob', undefined]);
    expect(items[2]?.type === 'intents' && items[2].warnings?.[0]?.code).toBe('MAPPING_NOT_A_HANDLE');
  });

  it('leaves out a whole address that has no city, and keeps the person', async () => {
    const [item] = await run(
      mappingWith(
        '',
        '    addresses:\n      - { city: city, country_code: { column: country, transforms: [country] } }',
      ),
      [{ ...person, city: '', country: 'Viet Nam' }],
    );
    expect(item?.type).toBe('intents');
    if (item?.type !== 'intents') return;
    expect(Object.keys(item.intents[0]?.params ?? {})).not.toContain(
      'user[account_attributes][addresses_attributes][0][country_code]',
    );
    expect(item.warnings?.[0]?.message).toMatch(/the address left out$/);
  });

  it('places countries by name and leaves out one it cannot', async () => {
    const items = await run(
      mappingWith(
        '',
        '    addresses:\n      - { city: city, country_code: { column: country, transforms: [country] } }',
      ),
      [
        { ...person, city: 'Hanoi', country: 'Viet Nam' },
        { ...person, id: '2', email: 'b@x.org', city: 'Pristina', country: 'Kosovo' },
      ],
    );
    expect(items[0]?.type === 'intents' && items[0].warnings).toBe(undefined);
    expect(params(items[0])['user[account_attributes][addresses_attributes][0][country_code]']).toBe('VN');
    expect(items[1]?.type === 'intents' && items[1].warnings?.[0]?.code).toBe('MAPPING_UNKNOWN_COUNTRY');
  });

  it('leaves out a position with the company it needs', async () => {
    const [item] = await run(mappingWith('      company: org\n      position: job'), [
      { ...person, org: 'Ac\u0000me', job: 'CTO' },
    ]);
    expect(item?.type).toBe('intents');
    expect(Object.keys(params(item)).some((name) => name.includes('employee_attributes'))).toBe(false);
  });

  it('judges each number of a phone entry alone: a bad cell number goes, the work number beside it is sent', async () => {
    const phone = (number: string): string => `user[item_attributes][phones_attributes][0][${number}]`;
    const items = await run(
      mappingWith(
        '    phones:\n' +
          '      - cell_number: { column: cell, transforms: [digits_and_plus] }\n' +
          '        work_number: { column: work, transforms: [digits_and_plus] }',
      ),
      [
        { ...person, cell: '+1-800-FLOWERS', work: '+1 212 555 0100' },
        { ...person, id: '2', email: 'b@x.org', cell: '+1 212 555 0101', work: '4.47911E+11' },
      ],
    );
    expect(items.map((item) => item.type)).toEqual(['intents', 'intents']);
    expect(params(items[0])[phone('work_number')]).toBe('+12125550100');
    expect(params(items[0])).not.toHaveProperty(phone('cell_number'));
    expect(params(items[1])[phone('cell_number')]).toBe('+12125550101');
    expect(params(items[1])).not.toHaveProperty(phone('work_number'));
    // Only the bad number is unsaid: the plan keeps what an earlier run synced for it alone.
    expect(items[0]?.type === 'intents' && items[0].intents[0]?.uncarried).toEqual([phone('cell_number')]);
    expect(items[0]?.type === 'intents' && items[0].warnings?.map((w) => w.message)).toEqual([
      expect.stringMatching(
        /^row 1 \(line 2\), cell: "\+1-800-FLOWERS" is not a phone number: .*: left out$/,
      ),
    ]);
    expect(items[1]?.type === 'intents' && items[1].warnings?.map((w) => w.message)).toEqual([
      expect.stringMatching(
        /^row 2 \(line 3\), work: "4\.47911E\+11" is a number Excel rounded .*: left out$/,
      ),
    ]);
  });

  it('fails the row for a field marked required, and for the e-mail and names', async () => {
    const items = await run(mappingWith('      twitter: { column: social, required: true }'), [
      { ...person, social: 'Ada on X' },
      { ...person, id: '2', email: 'not-an-email', social: 'https://x.com/b' },
    ]);
    expect(items.map((item) => item.type)).toEqual(['invalid', 'invalid']);
  });
});

function params(item: MappedItem | undefined): Record<string, string> {
  return item?.type === 'intents' ? (item.intents[0]?.params ?? {}) : {};
}

describe('numbers Excel rounded into scientific notation (2.36021E+11)', () => {
  const mapping = `
intents:
  - kind: user
    params:
      client_id: { template: 'eb-{Attendee #}' }
      email: email
      first_name: first
      last_name: last
    phones:
      - { cell_number: cell }
`;
  it('fails a row whose key holds one, and leaves such a phone out with a warning', async () => {
    const items = await run(mapping, [
      { 'Attendee #': '2.36021E+11', email: 'a@x.org', first: 'Ada', last: 'L', cell: '' },
      { 'Attendee #': '1001', email: 'b@x.org', first: 'Bo', last: 'B', cell: '4.91761E+11' },
      { 'Attendee #': '1002', email: 'c@x.org', first: 'Cy', last: 'C', cell: '+49 30 1234' },
    ]);
    expect(items[0]?.type).toBe('invalid');
    expect(items[0]?.type === 'invalid' && items[0].problems).toEqual([
      expect.objectContaining({
        code: 'MAPPING_EXCEL_NUMBER',
        message: expect.stringMatching(
          /^row 1 \(line 2\), eb-\{Attendee #\}: "eb-2\.36021E\+11" holds 2\.36021E\+11, a number Excel rounded into scientific notation: .* without opening it in Excel, or import it into Excel with this column formatted as text$/,
        ),
      }),
    ]);
    expect(items[1]?.type).toBe('intents');
    expect(params(items[1])).not.toHaveProperty('user[item_attributes][phones_attributes][0][cell_number]');
    expect(items[1]?.type === 'intents' && items[1].warnings).toEqual([
      expect.objectContaining({
        code: 'MAPPING_EXCEL_NUMBER',
        message: expect.stringMatching(
          /^row 2 \(line 3\), cell: "4\.91761E\+11" is a number Excel rounded into scientific notation, not the phone number: .*: left out$/,
        ),
      }),
    ]);
    expect(params(items[2])['user[item_attributes][phones_attributes][0][cell_number]']).toBe('+49 30 1234');
  });

  it("reports a row failed by its key under the key's code, not under a phone that would only be left out", async () => {
    const withPhoneDigits = mapping.replace(
      '{ cell_number: cell }',
      '{ cell_number: { column: cell, transforms: [digits_and_plus] } }',
    );
    const [item] = await run(withPhoneDigits, [
      { 'Attendee #': '2.36021E+11', email: 'a@x.org', first: 'Ada', last: 'L', cell: '+1-800-FLOWERS' },
    ]);
    expect(item?.type).toBe('invalid');
    if (item?.type !== 'invalid') return;
    // Every problem is still named, in the row's order: the phone's comes first.
    expect(item.problems.map((problem) => [problem.code, problem.optionalField])).toEqual([
      ['MAPPING_NOT_A_PHONE', true],
      ['MAPPING_EXCEL_NUMBER', undefined],
    ]);
    expect(failingProblem(item)).toMatchObject({ code: 'MAPPING_EXCEL_NUMBER', field: 'eb-{Attendee #}' });
    const summary = new ValidationSummary();
    summary.add(item);
    expect(summary.losses.lines()).toEqual([
      'user: all 1 row invalid: MAPPING_EXCEL_NUMBER in eb-{Attendee #}. The rows are listed below',
    ]);
  });
});
