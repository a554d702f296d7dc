import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli, type CliResult } from '../../helpers/run-cli.js';
import { SERVICES, serviceAvailable } from '../../helpers/services.js';

const mariadbUp = await serviceAvailable('mariadb');
const postgresUp = await serviceAvailable('postgres');
const dir = mkdtempSync(join(tmpdir(), 'evsync-read-only-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

const ONLY_READS = /only a SELECT or WITH … SELECT is allowed/;

/** `evsync validate` of a job reading `query` from the database whose URL is `url`. */
async function validateQuery(kind: 'mysql' | 'postgres', url: string, query: string): Promise<CliResult> {
  const name = `ro-${randomBytes(3).toString('hex')}`;
  const job = join(dir, `${name}.yaml`);
  writeFileSync(
    job,
    [
      `name: ${name}`,
      'steps:',
      '  - mapping: users',
      '    source:',
      `      ${kind}:`,
      '        url_env: RO_SOURCE_URL',
      `        query: ${JSON.stringify(query)}`,
      '',
    ].join('\n'),
  );
  vi.stubEnv('RO_SOURCE_URL', url);
  vi.stubEnv('LOG_LEVEL', 'silent');
  return runCli('validate', job);
}

const PEOPLE = [
  ['r1', 'r1@example.org', 'Ann', 'One'],
  ['r2', 'r2@example.org', 'Bo', 'Two'],
  ['r3', 'r3@example.org', 'Cy', 'Three'],
];

describe.runIf(mariadbUp)('MySQL source queries only read, whatever the URL allows', () => {
  const table = `evsync_ro_${randomBytes(4).toString('hex')}`;
  const fn = `${table}_wipe`;
  // The URL a user might paste from another tool: several statements per query allowed.
  const url = `${SERVICES.mariadb.url}?multipleStatements=true`;
  let admin: mysql.Connection;
  const count = async (): Promise<number> => {
    const [rows] = await admin.query(`SELECT COUNT(*) AS n FROM ${table}`);
    return Number((rows as { n: number }[])[0]!.n);
  };

  beforeAll(async () => {
    admin = await mysql.createConnection(SERVICES.mariadb.url);
    await admin.query(
      `CREATE TABLE ${table} (client_id VARCHAR(20) PRIMARY KEY, email VARCHAR(100), first_name VARCHAR(50), last_name VARCHAR(50))`,
    );
    await admin.query(`INSERT INTO ${table} VALUES ?`, [PEOPLE]);
    await admin.query(
      `CREATE FUNCTION ${fn}() RETURNS INT MODIFIES SQL DATA BEGIN DELETE FROM ${table}; RETURN 1; END`,
    );
  });
  afterAll(async () => {
    await admin.query(`DROP FUNCTION IF EXISTS ${fn}`);
    await admin.query(`DROP TABLE IF EXISTS ${table}`);
    await admin.end();
  });

  it('refuses `commit; delete …; select …` with exit 2 and leaves the table as it was', async () => {
    const result = await validateQuery('mysql', url, `commit; delete from ${table}; select * from ${table}`);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/has more than one statement/);
    expect(result.stderr).toMatch(ONLY_READS);
    expect(await count()).toBe(3);
  });

  it.each([
    ['DELETE', `DELETE FROM ${table}`, /starts with DELETE/],
    ['INTO OUTFILE', `SELECT * FROM ${table} INTO OUTFILE '/tmp/${table}.txt'`, /SELECT … INTO/],
    ['FOR UPDATE', `SELECT * FROM ${table} FOR UPDATE`, /locks the rows it reads \(FOR UPDATE\)/],
    ['LOCK IN SHARE MODE', `SELECT * FROM ${table} LOCK IN SHARE MODE`, /LOCK IN SHARE MODE/],
    ['an executable comment', `SELECT * FROM ${table} /*!99999 FOR UPDATE */`, /executable comment/],
  ])('refuses %s with exit 2 naming why', async (_what, query, why) => {
    const result = await validateQuery('mysql', url, query);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(why);
    expect(result.stderr).toMatch(ONLY_READS);
    expect(await count()).toBe(3);
  });

  it('lets the database refuse a function that writes: the transaction is read-only', async () => {
    const result = await validateQuery('mysql', url, `SELECT ${fn}() AS client_id`);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/READ ONLY transaction/i);
    expect(await count()).toBe(3);
  });

  it('still reads a SELECT whose strings and comments hold the words it refuses', async () => {
    const result = await validateQuery(
      'mysql',
      url,
      `SELECT client_id, email, first_name, last_name -- delete; into\nFROM ${table} WHERE last_name <> 'x; DELETE FROM y' ORDER BY client_id`,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ +valid +3$/m);
  });
});

describe.runIf(postgresUp)('PostgreSQL source queries only read', () => {
  const table = `evsync_ro_${randomBytes(4).toString('hex')}`;
  const fn = `${table}_wipe`;
  const admin = new pg.Client({ connectionString: SERVICES.postgres.url });
  const count = async (): Promise<number> =>
    Number((await admin.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);

  beforeAll(async () => {
    await admin.connect();
    await admin.query(
      `CREATE TABLE ${table} (client_id text PRIMARY KEY, email text, first_name text, last_name text)`,
    );
    for (const row of PEOPLE) await admin.query(`INSERT INTO ${table} VALUES ($1, $2, $3, $4)`, row);
    await admin.query(
      `CREATE FUNCTION ${fn}() RETURNS text LANGUAGE sql AS $$ DELETE FROM ${table} RETURNING 'x' $$`,
    );
  });
  afterAll(async () => {
    await admin.query(`DROP FUNCTION IF EXISTS ${fn}()`);
    await admin.query(`DROP TABLE IF EXISTS ${table}`);
    await admin.end();
  });

  it('refuses `commit; delete …; select …` with exit 2 and a message that says why', async () => {
    const result = await validateQuery(
      'postgres',
      SERVICES.postgres.url,
      `commit; delete from ${table}; select * from ${table}`,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/has more than one statement/);
    expect(result.stderr).toMatch(ONLY_READS);
    expect(await count()).toBe(3);
  });

  it.each([
    ['DELETE', `delete from ${table}`, /starts with DELETE/],
    [
      'a WITH part that deletes',
      `WITH x AS (DELETE FROM ${table} RETURNING *) SELECT * FROM x`,
      /changes data \(DELETE\)/,
    ],
    ['SELECT INTO', `SELECT * INTO ${table}_copy FROM ${table}`, /SELECT … INTO/],
    ['FOR NO KEY UPDATE', `SELECT * FROM ${table} FOR NO KEY UPDATE`, /locks the rows it reads/],
  ])('refuses %s with exit 2 naming why', async (_what, query, why) => {
    const result = await validateQuery('postgres', SERVICES.postgres.url, query);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(why);
    expect(result.stderr).toMatch(ONLY_READS);
    expect(await count()).toBe(3);
  });

  it('lets the database refuse a function that writes: the transaction is read-only', async () => {
    const result = await validateQuery('postgres', SERVICES.postgres.url, `SELECT ${fn}() AS client_id`);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/read-only transaction/);
    expect(await count()).toBe(3);
  });

  it('still reads a SELECT whose strings, dollar quotes and comments hold the words it refuses', async () => {
    const result = await validateQuery(
      'postgres',
      SERVICES.postgres.url,
      `/* delete; /* nested; */ into */ SELECT client_id, email, first_name, last_name FROM ${table} WHERE last_name <> E'x\\'; DELETE' AND last_name <> $q$; update$q$ ORDER BY substring(client_id from 1 for 5);`,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ +valid +3$/m);
  });
});
