import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace } from '../helpers/built-cli.js';
import { sentBesidesChecks } from '../helpers/sent-calls.js';
import { SERVICES, serviceAvailable } from '../helpers/services.js';

const postgres = await serviceAvailable('postgres');
const mariadb = await serviceAvailable('mariadb');
const table = `fixd_json_${randomBytes(4).toString('hex')}`;

const job = (kind: 'postgres' | 'mysql'): string =>
  [
    `name: ${kind}`,
    'steps:',
    '  - name: people',
    '    mapping: users',
    '    custom_data: { columns: all_unmapped }',
    `    source: { ${kind}: { url_env: SOURCE_DB_URL, query: "SELECT * FROM ${table} ORDER BY client_id" } }`,
    '',
  ].join('\n');

const landed = (sandbox: RunningSandbox): unknown =>
  sandbox.state
    .conferenceUsers()
    .map(({ email, customData }) => ({ email, customData }))
    .sort((a, b) => a.email.localeCompare(b.email));

// A tester's find: a JSON value of the source inside custom_data arrived as an escaped string
// (`{"tshirt":"{\"size\":\"M\"}"}`), numbers and booleans as strings: the mapping made every
// cell text. custom_data is one JSON object on the wire (spec §4.2), arbitrary JSON inside.
describe('JSON values of a SQL source in custom_data (built CLI)', () => {
  const ws = cliWorkspace('evsync-json-values-');
  afterAll(async () => {
    await ws.close();
    if (postgres) {
      const client = new pg.Client({ connectionString: SERVICES.postgres.url });
      await client.connect();
      await client.query(`DROP TABLE IF EXISTS ${table}`);
      await client.end();
    }
    if (mariadb) {
      const admin = await mysql.createConnection(SERVICES.mariadb.url);
      await admin.query(`DROP TABLE IF EXISTS ${table}`);
      await admin.end();
    }
  });

  it.runIf(postgres)(
    'PostgreSQL jsonb, json, integers, booleans and arrays keep their JSON; a second run sends nothing',
    async () => {
      const client = new pg.Client({ connectionString: SERVICES.postgres.url });
      await client.connect();
      try {
        await client.query(`CREATE TABLE ${table} (client_id text, email text, first_name text,
          last_name text, tshirt jsonb, answers json, nights int, vip boolean, langs text[], price numeric)`);
        await client.query(`INSERT INTO ${table} VALUES
          ('j1', 'j1@example.org', 'Jo', 'One', '{"size": "M", "fit": ["slim"]}', '{"q1": 3}', 2, true,
           '{de,en}', 12.50)`);
      } finally {
        await client.end();
      }
      const sandbox = await ws.sandbox();
      ws.write({ 'pg.yaml': job('postgres') });
      const env = { SOURCE_DB_URL: SERVICES.postgres.url };
      const first = await ws.run(sandbox, ['run', 'pg.yaml'], env);
      expect(first.code, first.stdout + first.stderr).toBe(0);
      expect(landed(sandbox)).toEqual([
        {
          email: 'j1@example.org',
          customData: {
            tshirt: { size: 'M', fit: ['slim'] },
            answers: { q1: 3 },
            nights: 2,
            vip: true,
            langs: ['de', 'en'],
            // numeric arrives as its digits (no float rounding): text, as the driver gives it.
            price: '12.50',
          },
        },
      ]);
      sandbox.counters.reset();
      const second = await ws.run(sandbox, ['run', 'pg.yaml'], env);
      expect(second.code, second.stdout + second.stderr).toBe(0);
      expect(sentBesidesChecks(sandbox.counters.snapshot())).toBe(0);
    },
    90_000,
  );

  it.runIf(mariadb)(
    'a MariaDB JSON column keeps its JSON; a second run sends nothing',
    async () => {
      const admin = await mysql.createConnection(SERVICES.mariadb.url);
      try {
        await admin.query(`CREATE TABLE ${table} (client_id VARCHAR(20), email VARCHAR(100),
        first_name VARCHAR(50), last_name VARCHAR(50), tshirt JSON, nights INT)`);
        await admin.query(
          `INSERT INTO ${table} VALUES ('m1', 'm1@example.org', 'Mo', 'One', '{"size": "M"}', 3)`,
        );
      } finally {
        await admin.end();
      }
      const sandbox = await ws.sandbox();
      ws.write({ 'my.yaml': job('mysql') });
      const env = { SOURCE_DB_URL: SERVICES.mariadb.url };
      const first = await ws.run(sandbox, ['run', 'my.yaml'], env);
      expect(first.code, first.stdout + first.stderr).toBe(0);
      expect(landed(sandbox)).toEqual([
        { email: 'm1@example.org', customData: { tshirt: { size: 'M' }, nights: 3 } },
      ]);
      sandbox.counters.reset();
      const second = await ws.run(sandbox, ['run', 'my.yaml'], env);
      expect(second.code, second.stdout + second.stderr).toBe(0);
      expect(sentBesidesChecks(sandbox.counters.snapshot())).toBe(0);
    },
    90_000,
  );
});
