import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceItem } from '../../../src/sources/source-row.js';
import { openSource } from '../../../src/sources/open-source.js';
import { sourceConfigSchema } from '../../../src/sources/source-config.js';
import { readSourceConfig } from '../../helpers/read-source.js';
import { SERVICES, serviceAvailable } from '../../helpers/services.js';

const available = await serviceAvailable('postgres');
const table = `evsync_src_${randomBytes(4).toString('hex')}`;
const env = { SOURCE_DB_URL: SERVICES.postgres.url };

function readAll(
  source: Record<string, unknown>,
  environment: NodeJS.ProcessEnv = env,
): Promise<SourceItem[]> {
  return readSourceConfig(source, environment);
}

describe.runIf(available)('postgres source', () => {
  const admin = new pg.Client({ connectionString: SERVICES.postgres.url });

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE TABLE ${table} (
      id int PRIMARY KEY, email text, status text, joined date, seen timestamp, paid_at timestamptz,
      big bigint, amount numeric(8,2), tags text[], extra jsonb, note text)`);
    await admin.query(`CREATE SEQUENCE ${table}_seq`);
    await admin.query(`INSERT INTO ${table}
      SELECT g, 'u' || g || '@example.com', CASE WHEN g % 10 = 0 THEN 'cancelled' ELSE 'ok' END,
        DATE '2024-05-01', TIMESTAMP '2024-05-01 09:30:00', TIMESTAMPTZ '2024-05-01 09:30:00+02',
        9007199254740993, 12.5, ARRAY['a','b'], '{"k": [1, 2]}', CASE WHEN g = 1 THEN NULL ELSE 'it''s :fine' END
      FROM generate_series(1, 2500) g`);
  });
  afterAll(async () => {
    await admin.query(`DROP TABLE IF EXISTS ${table}`);
    await admin.query(`DROP SEQUENCE IF EXISTS ${table}_seq`);
    await admin.end();
  });

  it('streams every row through the cursor, with named params bound and plain values', async () => {
    const items = await readAll({
      postgres: {
        url_env: 'SOURCE_DB_URL',
        name: 'members',
        query: `SELECT * FROM ${table} WHERE status = :status AND note IS DISTINCT FROM ':status' ORDER BY id`,
        params: { status: 'ok' },
      },
    });
    expect(items).toHaveLength(2250);
    expect(items[0]).toEqual({
      ok: true,
      origin: { source: 'query "members"', row: 1 },
      values: {
        id: 1,
        email: 'u1@example.com',
        status: 'ok',
        joined: '2024-05-01',
        seen: '2024-05-01T09:30:00',
        paid_at: '2024-05-01T07:30:00.000Z',
        big: '9007199254740993',
        amount: '12.50',
        tags: ['a', 'b'],
        extra: { k: [1, 2] },
        note: null,
      },
    });
    expect(items.at(-1)!.origin.row).toBe(2250);
  });

  it('runs read-only: a query that writes fails', async () => {
    await expect(
      readAll({ postgres: { url_env: 'SOURCE_DB_URL', query: `SELECT nextval('${table}_seq') AS n` } }),
    ).rejects.toMatchObject({
      code: 'SOURCE_QUERY_FAILED',
      message: expect.stringContaining('read-only transaction'),
    });
    const sequence = await admin.query(`SELECT last_value::int AS n, is_called FROM ${table}_seq`);
    expect(sequence.rows[0]).toEqual({ n: 1, is_called: false });
  });

  it('runs one statement: a query cannot commit its way out of the read-only transaction', async () => {
    const escape = `SELECT 1 AS n; COMMIT; DELETE FROM ${table} WHERE id = 1`;
    // Refused before connecting; the read-only-queries tests show the database refusing too.
    await expect(readAll({ postgres: { url_env: 'SOURCE_DB_URL', query: escape } })).rejects.toMatchObject({
      code: 'SOURCE_QUERY_NOT_READ_ONLY',
    });
    expect((await admin.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]).toEqual({ n: 2500 });
  });

  it('refuses a query that returns two columns of one name, before its first row', async () => {
    // pg keeps the last of two equal keys: the join's second e-mail would replace the first.
    for (const where of ['id <= 3', 'false']) {
      const source = openSource(
        sourceConfigSchema.parse({
          postgres: {
            url_env: 'SOURCE_DB_URL',
            name: 'people',
            query: `SELECT t.id AS client_id, t.email, t.status, 'pa@example.org' AS email, t.id AS status
              FROM ${table} t WHERE ${where} ORDER BY t.id`,
          },
        }),
        { baseDir: '.', env },
      );
      const yielded: SourceItem[] = [];
      const failure = await (async () => {
        for await (const item of source.rows()) yielded.push(item);
      })().catch((error: unknown) => error);
      expect(yielded, where).toEqual([]);
      expect(failure, where).toMatchObject({
        name: 'SourceError',
        code: 'SOURCE_DUPLICATE_COLUMN',
        message: expect.stringContaining(
          'query "people" returns the same column name more than once in PostgreSQL: "email" (columns 2, 4); "status" (columns 3, 5)',
        ),
      });
      expect((failure as Error).message).toContain('AS');
    }
  });

  it('reads bytea that is UTF-8 text as text, other bytes as base64 with a note', async () => {
    const source = openSource(
      sourceConfigSchema.parse({
        postgres: {
          url_env: 'SOURCE_DB_URL',
          query: `SELECT convert_to('Fayé', 'UTF8') AS name, convert_to('Fayé', 'LATIN1') AS latin,
            '\\x89504e470d0a1a0a00'::bytea AS photo, NULL::bytea AS nothing`,
        },
      }),
      { baseDir: '.', env },
    );
    const values: unknown[] = [];
    for await (const item of source.rows()) values.push(item.ok ? item.values : item);
    expect(values).toEqual([{ name: 'Fayé', latin: 'RmF56Q==', photo: 'iVBORw0KGgoA', nothing: null }]);
    expect(source.notes?.()).toEqual([
      expect.stringMatching(
        /^bytes that are not UTF-8 text were read as base64 in "latin" \(1 value\), "photo" \(1 value\): .*convert_from\(col, 'LATIN1'\)/,
      ),
    ]);
  });

  it('stops early without leaving the connection stuck', async () => {
    const source = openSource(
      sourceConfigSchema.parse({ postgres: { url_env: 'SOURCE_DB_URL', query: `SELECT id FROM ${table}` } }),
      { baseDir: '.', env },
    );
    let seen = 0;
    for await (const _item of source.rows()) if (++seen === 3) break;
    expect(seen).toBe(3);
  });

  it('names the env var, never the URL, when it is unset or wrong', () => {
    expect(() =>
      openSource(sourceConfigSchema.parse({ postgres: { url_env: 'NOPE_DB_URL', query: 'SELECT 1' } }), {
        baseDir: '.',
        env: {},
      }),
    ).toThrow(/NOPE_DB_URL, which is not set/);
    for (const wrong of [
      'postgres:someone:hunter2@host/db',
      'postgres://someone:hunter2@[not-a-host/db',
      'mysql://someone:hunter2@host/db',
      'hunter2',
    ]) {
      const open = () =>
        openSource(sourceConfigSchema.parse({ postgres: { url_env: 'BAD_DB_URL', query: 'SELECT 1' } }), {
          baseDir: '.',
          env: { BAD_DB_URL: wrong },
        });
      expect(open).toThrow(
        /BAD_DB_URL does not hold a postgres connection URL .*postgres:\/\/user:password@host:5432\/db/,
      );
      expect(open).not.toThrow(/hunter2/);
    }
    // A local socket has no host in the URL: still a PostgreSQL URL.
    for (const socket of ['postgres:///test', 'postgresql:///test?host=/var/run/postgresql']) {
      expect(() =>
        openSource(sourceConfigSchema.parse({ postgres: { url_env: 'SOCKET_DB_URL', query: 'SELECT 1' } }), {
          baseDir: '.',
          env: { SOCKET_DB_URL: socket },
        }),
      ).not.toThrow();
    }
  });

  it('reports a refused connection without the password', async () => {
    const url = 'postgres://someone:hunter2secret@127.0.0.1:1/test';
    const failure = await readAll(
      { postgres: { url_env: 'SOURCE_DB_URL', query: 'SELECT 1' } },
      { SOURCE_DB_URL: url },
    ).catch((error: unknown) => error as Error & { code: string });
    expect(failure).toMatchObject({
      code: 'SOURCE_DB_UNREACHABLE',
      message: expect.stringContaining('SOURCE_DB_URL'),
    });
    expect(
      JSON.stringify({ message: (failure as Error).message, cause: String((failure as Error).cause) }),
    ).not.toContain('hunter2secret');
  });
});
