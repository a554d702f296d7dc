import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSource } from './open-source.js';
import { sourceConfigSchema } from './source-config.js';
import type { SourceItem } from './source-row.js';

const FIXTURES = join(import.meta.dirname, '../../test/fixtures/sources');

const open = (source: unknown, env: NodeJS.ProcessEnv = {}) =>
  openSource(sourceConfigSchema.parse(source), { baseDir: FIXTURES, env });

async function first(source: unknown): Promise<SourceItem> {
  for await (const item of open(source).rows()) return item;
  throw new Error('no rows');
}

describe('openSource', () => {
  it('resolves a CSV path against the job folder and names it as written', async () => {
    const item = await first({ csv: 'semicolon.csv' });
    expect(item).toMatchObject({ ok: true, origin: { source: 'semicolon.csv', row: 1, line: 2 } });
    expect(open({ csv: 'semicolon.csv' }).description).toBe('CSV file semicolon.csv');
  });

  it('passes encoding and delimiter through', async () => {
    const item = await first({ csv: { path: 'windows-1252.csv', encoding: 'latin1', delimiter: ',' } });
    expect(item).toMatchObject({ values: { first_name: 'Zoé' } });
  });

  it('opens schedules of each kind, with the timezone setting', async () => {
    expect(await first({ frab: 'frab-schedule.xml' })).toMatchObject({
      values: { record_type: 'session', id: '5e1c4c1e-0000-4000-8000-000000000001' },
    });
    expect(await first({ pretalx: { path: 'frab-schedule.xml', timezone: 'UTC' } })).toMatchObject({
      values: { id: '5e1c4c1e-0000-4000-8000-000000000001' },
    });
    expect(
      await first({ sessionize: { path: 'sessionize-messy.json', timezone: 'Europe/Berlin' } }),
    ).toMatchObject({
      origin: { source: 'sessionize-messy.json', row: 1 },
      values: { record_type: 'session', start: '2024-03-31T01:30:00+01:00' },
    });
  });

  it('refuses a timezone that is not an IANA zone', async () => {
    await expect(first({ frab: { path: 'frab-schedule.xml', timezone: 'Berlin' } })).rejects.toMatchObject({
      code: 'SOURCE_BAD_TIMEZONE',
    });
  });

  it('checks SQL sources at open time: env var and params, without connecting', () => {
    expect(() => open({ postgres: { url_env: 'DB_URL', query: 'SELECT 1' } })).toThrow(
      /DB_URL, which is not set/,
    );
    expect(() =>
      open(
        { mysql: { url_env: 'DB_URL', query: 'SELECT :a' } },
        { DB_URL: 'mysql://u:secretpw@localhost/x' },
      ),
    ).toThrow(/:a/);
    const source = open(
      { postgres: { url_env: 'DB_URL', name: 'members', query: 'SELECT 1' } },
      { DB_URL: 'postgres://u:secretpw@localhost/x' },
    );
    expect(source.description).toBe('PostgreSQL query "members" (URL from DB_URL)');
    expect(source.description).not.toContain('secretpw');
  });
});
