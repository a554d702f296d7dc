import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { YamlFileError } from '../config/yaml-file.js';
import { loadMapping } from './load-mapping.js';
import { shippedMappingNames } from './shipped-mappings.js';

const dir = mkdtempSync(join(tmpdir(), 'evsync-mapping-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('loadMapping', () => {
  it('loads every shipped mapping by name, with the vendor word in param names', async () => {
    for (const name of shippedMappingNames()) {
      const mapping = await loadMapping(name, { vendor: 'zerista' });
      expect(mapping.name).toBe(name);
      expect(mapping.kinds.length).toBeGreaterThan(0);
    }
    const users = await loadMapping('users', { vendor: 'zerista' });
    expect(users.unique).toEqual(['user[zerista_auth_attributes][email]']);
  });

  it('reports every mistake of a mapping file at once, each with its line and a fix', async () => {
    const path = file(
      'broken.yaml',
      [
        'on_duplicate: sometimes', // 1
        'intents:', // 2
        '  - kind: user', // 3
        '    op: remove', // 4
        '    params:', // 5
        '      emial: Email', // 6
        '      user[svc_auth_attributes][email]: Email', // 7
        '      first_name: { column: First, transforms: [shout] }', // 8
        '      last_name: { template: "{Last" }', // 9
        '      tags: { column: Tags, transforms: [{ datetime: { timezone: Mars/Olympus } }] }', // 10
        '  - kind: check_in', // 11
        '    when: { column: Status, matches: "([" }', // 12
        '    params:', // 13
        '      mode: { const: 1 }', // 14
        '',
      ].join('\n'),
    );
    const error = await loadMapping(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(YamlFileError);
    expect((error as Error).message).toContain(path);
    // Structure and rules together, in file order, each naming what was written.
    expect((error as YamlFileError).issues.map((i) => `${i.line}: ${i.path}: ${i.message}`)).toEqual([
      '1: on_duplicate: Invalid option: expected one of "error"|"first"|"last"',
      expect.stringMatching(/^4: intents\.0\.op: a user cannot be removed by a source row/),
      expect.stringMatching(
        /^6: intents\.0\.params\.emial: emial is not a param of a user: use a short name \(client_id, email/,
      ),
      expect.stringMatching(/^7: .*write user\[\{vendor\}_auth_attributes\]/),
      expect.stringMatching(
        /^8: intents\.0\.params\.first_name\.transforms\.0: "shout" is not a transform: use one of trim, lower, .*\{replace: …\}, \{handle_url: …\}$/,
      ),
      expect.stringMatching(/^9: .*template: has an unbalanced \{ or \}/),
      expect.stringMatching(/^10: .*timezone: "Mars\/Olympus" is not an IANA time zone/),
      expect.stringMatching(/^11: intents\.1\.key: a check_in needs a key/),
      expect.stringMatching(/^12: .*matches: is not a valid regular expression/),
    ]);
  });

  it('names the form a malformed value was meant as, or what was written when none fits', async () => {
    const path = file(
      'values.yaml',
      [
        'intents:',
        '  - kind: user',
        '    params:',
        '      last_name: { colum: Email }',
        '      position: { column: Job, transform: [trim] }',
        '      tags: { column: Tags, transforms: [{ datetime: { date_order: ymd } }] }',
        '',
      ].join('\n'),
    );
    const error = (await loadMapping(path).catch((e: unknown) => e)) as YamlFileError;
    expect(error.issues.map((i) => `${i.line}: ${i.path}: ${i.message}`)).toEqual([
      '4: intents.0.params.last_name: {colum: …} is not a value: write a column name, a list of aliases, or one of {column: …}, {template: …}, {const: …}, {first_of: […]}',
      '5: intents.0.params.position: Unrecognized key: "transform"',
      '6: intents.0.params.tags.transforms.0.datetime.date_order: Invalid option: expected one of "dmy"|"mdy"',
    ]);
  });

  it('names the shipped mappings when a name is unknown', async () => {
    await expect(loadMapping('atendees')).rejects.toThrow(
      /no shipped mapping "atendees": use one of .*users/,
    );
  });

  it('loads a TypeScript mapping module, the escape hatch', async () => {
    const path = file(
      'custom.ts',
      `export const mapping = {
        kinds: ['user'],
        onDuplicate: 'first',
        mapRow(row, { origin }) {
          if (row.skip === 'yes') return { skip: 'asked to' };
          return [{ kind: 'user', params: { client_id: 'm-' + origin.row, 'user[first_name]': String(row.name) } }];
        },
      };\n`,
    );
    const mapping = await loadMapping(path);
    expect(mapping).toMatchObject({ name: 'custom', kinds: ['user'], onDuplicate: 'first' });
    const mapper = mapping.bind(['name', 'skip']);
    expect(mapper({ name: 'Ada', skip: 'no' }, { source: 's', row: 3 })).toEqual({
      type: 'drafts',
      drafts: [{ kind: 'user', op: 'upsert', params: { client_id: 'm-3', 'user[first_name]': 'Ada' } }],
      problems: [],
    });
    expect(mapper({ name: 'Ada', skip: 'yes' }, { source: 's', row: 4 })).toEqual({
      type: 'skip',
      reason: 'asked to',
    });
  });

  it("a module's mistake on a row is that row's problem: a throw, nothing returned, an intent without kind", async () => {
    const path = file(
      'careless.mjs',
      `export const mapping = {
        kinds: ['user'],
        mapRow(row) {
          if (row.case === 'throw') return row.missing.x;
          if (row.case === 'nothing') return undefined;
          if (row.case === 'event') return [{ kind: 'event', params: {} }];
          if (row.case === 'null params') return [{ kind: 'user', params: null }];
          return [{ params: {} }];
        },
      };\n`,
    );
    const mapper = (await loadMapping(path)).bind(['case']);
    const problemOf = (value: string): string | undefined => {
      const mapped = mapper({ case: value }, { source: 's', row: 1 });
      return mapped.type === 'drafts' ? mapped.problems[0]?.message : undefined;
    };
    expect(problemOf('throw')).toMatch(
      /^the mapping module careless\.mjs threw on this row: .*undefined.*; fix its mapRow$/,
    );
    expect(problemOf('nothing')).toBe(
      'the mapping module careless.mjs returned undefined for this row: mapRow must return a list of intents, { skip: reason } or { problems: [...] }',
    );
    expect(problemOf('no kind')).toBe(
      'the mapping module careless.mjs returned an intent at index 0 ({"params":{}}) for this row without a kind it declares (user) or without params as an object',
    );
    expect(problemOf('event')).toMatch(/returned an intent at index 0 \(\{"kind":"event","params":\{\}\}\)/);
    expect(problemOf('null params')).toMatch(
      /returned an intent at index 0 \(\{"kind":"user","params":null\}\)/,
    );
  });

  it('refuses a module without a mapping export', async () => {
    await expect(loadMapping(file('empty.mjs', 'export const other = 1;\n'))).rejects.toThrow(
      /must export `mapping`/,
    );
  });
});
