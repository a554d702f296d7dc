import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { sentBesidesChecks } from '../helpers/sent-calls.js';
import { SERVICES, serviceAvailable } from '../helpers/services.js';

const postgres = await serviceAvailable('postgres');
const table = `fixd_people_${randomBytes(4).toString('hex')}`;

// A tester's find: `custom_data: { columns: all_unmapped }` on a step with the shipped `users`
// mapping (what `evsync init --from csv|postgres|mysql` writes) said the columns were kept,
// ran with exit 0, and sent no custom_data: the mapping's own custom_data is one column.
describe('custom_data: { columns: all_unmapped } with the shipped users mapping (built CLI)', () => {
  const ws = cliWorkspace('evsync-unmapped-');
  afterAll(async () => {
    await ws.close();
    if (postgres) {
      const client = new pg.Client({ connectionString: SERVICES.postgres.url });
      await client.connect();
      await client.query(`DROP TABLE IF EXISTS ${table}`);
      await client.end();
    }
  });

  it('a CSV: the unmapped column lands in custom_data, and an unchanged second run sends nothing', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'p.csv':
        'client_id,email,first_name,last_name,tshirt,password\nc1,cd1@example.com,Cara,Dee,M,hunter2\n',
      'csv.yaml':
        'name: csv\nsteps:\n  - { name: p, mapping: users, custom_data: { columns: all_unmapped }, source: { csv: ./p.csv } }\n',
    });
    const validate = await ws.run(sandbox, ['validate', 'csv.yaml']);
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    expect(validate.stdout).toContain(
      `note: kept in each user's custom_data (custom_data: { columns: all_unmapped }): "tshirt"`,
    );
    expect(validate.stdout).toMatch(/note: not kept in custom_data, .*"password" \(named like a secret/);

    const first = await ws.run(sandbox, ['run', 'csv.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(sandbox.state.userByEmail('cd1@example.com')?.customData).toEqual({ tshirt: 'M' });

    sandbox.counters.reset();
    const second = await ws.run(sandbox, ['run', 'csv.yaml']);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(sentBesidesChecks(sandbox.counters.snapshot())).toBe(0);
  }, 90_000);

  it.runIf(postgres)(
    "a PostgreSQL query: merged into the custom_data column's object, its keys first",
    async () => {
      const client = new pg.Client({ connectionString: SERVICES.postgres.url });
      await client.connect();
      try {
        await client.query(`CREATE TABLE ${table} (client_id text, email text, first_name text,
          last_name text, tshirt text, diet text, custom_data jsonb)`);
        await client.query(`INSERT INTO ${table} VALUES
          ('q1', 'q1@example.org', 'Quinn', 'One', 'M', NULL, '{"order": "A-1", "tshirt": "L"}'),
          ('q2', 'q2@example.org', 'Quill', 'Two', 'S', 'vegan', NULL)`);
      } finally {
        await client.end();
      }
      const sandbox = await ws.sandbox();
      ws.write({
        'db.yaml': [
          'name: db',
          'steps:',
          '  - name: people',
          '    mapping: users',
          '    custom_data: { columns: all_unmapped }',
          `    source: { postgres: { url_env: SOURCE_DB_URL, query: "SELECT * FROM ${table} ORDER BY client_id" } }`,
          '',
        ].join('\n'),
      });
      const env = { SOURCE_DB_URL: SERVICES.postgres.url };
      const validate = await ws.run(sandbox, ['validate', 'db.yaml'], env);
      expect(validate.code, validate.stdout + validate.stderr).toBe(0);
      expect(validate.stdout).toContain(
        `note: kept in each user's custom_data (custom_data: { columns: all_unmapped }), merged into the ` +
          `JSON object in the column "custom_data", whose keys win over a column of the same name: "tshirt", "diet"`,
      );
      expect(validate.stdout).toMatch(/on 1 row the JSON object in "custom_data" .* "tshirt" \(1 row\)/);

      const first = await ws.run(sandbox, ['run', 'db.yaml'], env);
      expect(first.code, first.stdout + first.stderr).toBe(0);
      const landed = sandbox.state
        .conferenceUsers()
        .map(({ email, customData }) => ({ email, customData }))
        .sort((a, b) => a.email.localeCompare(b.email));
      expect(landed).toEqual([
        { email: 'q1@example.org', customData: { order: 'A-1', tshirt: 'L' } },
        { email: 'q2@example.org', customData: { tshirt: 'S', diet: 'vegan' } },
      ]);

      sandbox.counters.reset();
      const second = await ws.run(sandbox, ['run', 'db.yaml'], env);
      expect(second.code, second.stdout + second.stderr).toBe(0);
      expect(sentBesidesChecks(sandbox.counters.snapshot())).toBe(0);
    },
    90_000,
  );
});
