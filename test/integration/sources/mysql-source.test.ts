import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceItem } from '../../../src/sources/source-row.js';
import { openSource } from '../../../src/sources/open-source.js';
import { sourceConfigSchema } from '../../../src/sources/source-config.js';
import { readSourceConfig } from '../../helpers/read-source.js';
import { SERVICES, serviceAvailable } from '../../helpers/services.js';

const available = await serviceAvailable('mariadb');
const table = `evsync_src_${randomBytes(4).toString('hex')}`;
const env = { SOURCE_DB_URL: SERVICES.mariadb.url };

function readAll(
  source: Record<string, unknown>,
  environment: NodeJS.ProcessEnv = env,
): Promise<SourceItem[]> {
  return readSourceConfig(source, environment);
}

describe.runIf(available)('mysql source (MariaDB)', () => {
  let admin: mysql.Connection;

  beforeAll(async () => {
    admin = await mysql.createConnection(SERVICES.mariadb.url);
    await admin.query(`CREATE TABLE ${table} (
      id INT PRIMARY KEY, email VARCHAR(100), status VARCHAR(20), joined DATE, seen DATETIME,
      paid_at TIMESTAMP NULL, big BIGINT, amount DECIMAL(8,2), extra JSON, note TEXT)`);
    const rows = Array.from({ length: 2500 }, (_, index) => {
      const id = index + 1;
      return [
        id,
        `u${id}@example.com`,
        id % 10 === 0 ? 'cancelled' : 'ok',
        '2024-05-01',
        '2024-05-01 09:30:00',
        '2024-05-01 07:30:00',
        '9007199254740993',
        '12.50',
        '{"k": [1, 2]}',
        id === 1 ? null : "it's :fine",
      ];
    });
    await admin.query("SET time_zone = '+00:00'");
    await admin.query(`INSERT INTO ${table} VALUES ?`, [rows]);
  });
  afterAll(async () => {
    await admin.query(`DROP TABLE IF EXISTS ${table}_legacy`);
    await admin.query(`DROP TABLE IF EXISTS ${table}`);
    await admin.end();
  });

  it('streams every row, with named params bound and plain values', async () => {
    const items = await readAll({
      mysql: {
        url_env: 'SOURCE_DB_URL',
        query: `SELECT * FROM ${table} WHERE status = :status AND (note IS NULL OR note <> ':status') ORDER BY id`,
        params: { status: 'ok' },
      },
    });
    expect(items).toHaveLength(2250);
    expect(items[0]).toMatchObject({
      ok: true,
      origin: { source: expect.stringMatching(/^query "SELECT \* FROM evsync_src_/), row: 1 },
      values: {
        id: 1,
        email: 'u1@example.com',
        joined: '2024-05-01',
        seen: '2024-05-01T09:30:00',
        paid_at: '2024-05-01T07:30:00Z',
        big: '9007199254740993',
        amount: '12.50',
        extra: { k: [1, 2] },
        note: null,
      },
    });
    expect(items.at(-1)!.origin.row).toBe(2250);
  });

  it('reads a legacy schema as a person reads it: bytes as text, BIT as numbers, zero dates as NULL', async () => {
    // A legacy schema: names in VARBINARY and BLOB, flags in BIT, zero dates, MariaDB's JSON.
    await admin.query(`CREATE TABLE ${table}_legacy (
      id INT PRIMARY KEY, name VARBINARY(40), bio BLOB, code BINARY(6), photo BLOB, vip BIT(1),
      mask BIT(10), wide BIT(64), seen DATETIME NULL, paid TIMESTAMP NULL, born DATE NULL, extra JSON)`);
    await admin.query("SET SESSION sql_mode = ''");
    await admin.query(
      `INSERT INTO ${table}_legacy VALUES
        (1, 'Fayé', 'Loves <b>SQL</b>\nand tea', 'ab', x'89504e470d0a1a0a00', b'1', b'1000000001',
         b'1111111111111111111111111111111111111111111111111111111111111111',
         '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00', '{"size": "M"}'),
        (2, x'46617965e9', NULL, x'00ff00000000', NULL, b'0', b'0', b'0',
         '2024-00-00 10:00:00', '2024-05-01 07:30:00', '2024-05-00', '[1, 2]'),
        (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '2024-05-01 09:30:00', NULL, '2024-05-01', NULL)`,
    );
    const source = openSource(
      sourceConfigSchema.parse({
        mysql: {
          url_env: 'SOURCE_DB_URL',
          name: 'legacy',
          query: `SELECT * FROM ${table}_legacy ORDER BY id`,
        },
      }),
      { baseDir: '.', env },
    );
    const values: unknown[] = [];
    for await (const item of source.rows()) values.push(item.ok ? item.values : item);
    expect(values).toEqual([
      {
        id: 1,
        name: 'Fayé',
        bio: 'Loves <b>SQL</b>\nand tea',
        code: 'ab',
        photo: 'iVBORw0KGgoA',
        vip: 1,
        mask: 513,
        wide: '18446744073709551615',
        seen: null,
        paid: null,
        born: null,
        extra: { size: 'M' },
      },
      {
        id: 2,
        name: 'RmF5Zek=',
        bio: null,
        code: 'AP8AAAAA',
        photo: null,
        vip: 0,
        mask: 0,
        wide: '0',
        seen: null,
        paid: '2024-05-01T07:30:00Z',
        born: null,
        extra: [1, 2],
      },
      {
        id: 3,
        name: null,
        bio: null,
        code: null,
        photo: null,
        vip: null,
        mask: null,
        wide: null,
        seen: '2024-05-01T09:30:00',
        paid: null,
        born: '2024-05-01',
        extra: null,
      },
    ]);
    // Bytes that are not text are said, by column, with how to read them as text.
    expect(source.notes?.()).toEqual([
      expect.stringMatching(
        /^bytes that are not UTF-8 text were read as base64 in "photo" \(1 value\), "name" \(1 value\), "code" \(1 value\): .*CONVERT\(col USING latin1\)/,
      ),
    ]);
  });

  it('runs read-only: a write fails', async () => {
    await expect(
      readAll({ mysql: { url_env: 'SOURCE_DB_URL', query: `UPDATE ${table} SET status = 'x'` } }),
    ).rejects.toMatchObject({
      code: 'SOURCE_QUERY_NOT_READ_ONLY',
      message: expect.stringMatching(/starts with UPDATE/),
    });
    const [rows] = await admin.query(`SELECT count(*) AS n FROM ${table} WHERE status = 'x'`);
    expect(rows).toEqual([{ n: 0 }]);
  });

  it('refuses a query that returns two columns of one name, before its first row', async () => {
    // mysql2 keeps the last of two equal keys: a left join's NULL e-mail would replace the row's.
    for (const where of ['t.id <= 3', 'false']) {
      const source = openSource(
        sourceConfigSchema.parse({
          mysql: {
            url_env: 'SOURCE_DB_URL',
            name: 'people',
            query: `SELECT t.id AS client_id, t.email, o.email FROM ${table} t
              LEFT JOIN ${table} o ON o.id = -t.id WHERE ${where} ORDER BY t.id`,
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
          'query "people" returns the same column name more than once in MySQL: "email" (columns 2, 3)',
        ),
      });
    }
  });

  it('stops early and frees the connection', async () => {
    const source = openSource(
      sourceConfigSchema.parse({ mysql: { url_env: 'SOURCE_DB_URL', query: `SELECT id FROM ${table}` } }),
      { baseDir: '.', env },
    );
    let seen = 0;
    for await (const _item of source.rows()) if (++seen === 3) break;
    expect(seen).toBe(3);
  });

  it('reports a bad query and a refused connection without the password', async () => {
    await expect(
      readAll({ mysql: { url_env: 'SOURCE_DB_URL', query: 'SELECT nope FROM nowhere' } }),
    ).rejects.toMatchObject({
      code: 'SOURCE_QUERY_FAILED',
    });
    const failure = (await readAll(
      { mysql: { url_env: 'SOURCE_DB_URL', query: 'SELECT 1' } },
      { SOURCE_DB_URL: 'mysql://root:hunter2secret@127.0.0.1:1/test' },
    ).catch((error: unknown) => error)) as Error & { code: string };
    expect(failure.code).toBe('SOURCE_DB_UNREACHABLE');
    expect(failure.message).toContain('SOURCE_DB_URL');
    expect(failure.message).not.toContain('hunter2secret');
  });
});
