import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Source } from '../sources/source-row.js';
import { loadMapping } from './load-mapping.js';
import { mapSource } from './map-source.js';
import type { MappedItem } from './mapped-item.js';

const dir = mkdtempSync(join(tmpdir(), 'evsync-module-params-'));

/** Maps one row `{ id: '1' }` through a module whose mapRow returns `params` (and `columns`). */
async function mapOne(params: Record<string, string>, vendor = 'svc', columns?: Record<string, string>) {
  const path = join(dir, `m${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(
    path,
    `export const mapping = {
      kinds: ['user', 'schedule'],
      unique: ['email'],
      mapRow: () => [{ kind: ${JSON.stringify(params.kind ?? 'user')}, params: ${JSON.stringify({ ...params, kind: undefined })}${
        columns ? `, columns: ${JSON.stringify(columns)}` : ''
      } }],
    };\n`,
  );
  const mapping = await loadMapping(path, { vendor });
  const source: Source = {
    description: 'memory',
    rows: async function* () {
      await Promise.resolve();
      yield { ok: true, origin: { source: 'mem.csv', row: 1, line: 2 }, values: { id: '1' } };
    },
  };
  const items: MappedItem[] = [];
  for await (const item of mapSource(source, mapping)) items.push(item);
  return { items, mapping, file: path.slice(dir.length + 1) };
}

const USER = { client_id: 'm-1', 'user[first_name]': 'Ada', 'user[last_name]': 'L' };

describe('ModuleParamNames: a module is held to the param names of a YAML mapping', () => {
  it('expands short names as YAML does: email is the e-mail param, and unique: email matches it', async () => {
    const { items, mapping } = await mapOne({ ...USER, email: 'ada@x.org', first_name: 'Ada' });
    expect(mapping.unique).toContain('user[svc_auth_attributes][email]');
    expect(items[0]).toMatchObject({ type: 'invalid' });
    // first_name and user[first_name] are one param: set twice is the row's problem.
    expect(items[0]?.type === 'invalid' ? items[0].problems.map((p) => p.code) : []).toEqual([
      'MAPPING_DUPLICATE_PARAM',
    ]);
    const valid = await mapOne({ ...USER, email: 'ada@x.org' });
    expect(valid.items[0]).toMatchObject({
      type: 'intents',
      intents: [{ params: { ...USER, 'user[svc_auth_attributes][email]': 'ada@x.org' } }],
    });
  });

  it('makes an unknown name the row’s problem, naming the param and the fix, and sends nothing', async () => {
    const { items, file } = await mapOne({ ...USER, email: 'ada@x.org', 'user[frist_name]': 'Ada' }, 'svc', {
      'user[frist_name]': 'Vorname',
    });
    expect(items[0]).toEqual({
      type: 'invalid',
      kind: 'user',
      origin: { source: 'mem.csv', row: 1, line: 2 },
      // What the row could be read as, so that a report finds it by name and e-mail.
      params: {
        client_id: 'm-1',
        'user[first_name]': 'Ada',
        'user[last_name]': 'L',
        'user[svc_auth_attributes][email]': 'ada@x.org',
      },
      problems: [
        {
          field: 'Vorname',
          param: 'user[frist_name]',
          code: 'MAPPING_UNKNOWN_PARAM',
          message: expect.stringMatching(
            new RegExp(
              `^row 1 \\(line 2\\), Vorname: user\\[frist_name\\] is not a param of a user: use a short name \\(client_id, email, .*\\) or the spec's bracketed name \\(fix the mapRow of the mapping module ${file}\\)$`,
            ),
          ) as string,
        },
      ],
      keys: [{ kind: 'user', key: 'm-1' }],
    });
  });

  it('takes the auth params under the vendor word in force, and refuses another word', async () => {
    const password = { ...USER, email: 'ada@x.org', 'user[svc_auth_attributes][password]': 'secret-1' };
    expect((await mapOne(password, 'svc')).items[0]?.type).toBe('intents');
    const { items } = await mapOne(password, 'acme');
    const problems = items[0]?.type === 'invalid' ? items[0].problems : [];
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toContain(
      'user[svc_auth_attributes][password] names the vendor "svc", but it is "acme" here (EVSYNC_VENDOR)',
    );
    // The value is never quoted: it is a password.
    expect(problems[0]?.message).not.toContain('secret-1');
  });

  it('expands a list short name to its first index: a schedule row of a module', async () => {
    const { items } = await mapOne({ kind: 'schedule', user_client_id: 'u1', event_client_id: 'e1' });
    expect(items.at(-1)).toMatchObject({
      type: 'intents',
      intents: [{ kind: 'schedule', params: { 'user[client_id]': 'u1', 'event_client_ids[0]': 'e1' } }],
    });
  });
});
