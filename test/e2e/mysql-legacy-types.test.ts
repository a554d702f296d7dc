import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';
import { SERVICES, serviceAvailable } from '../helpers/services.js';
import { USERS_MAPPING } from '../helpers/users-csv.js';

const available = await serviceAvailable('mariadb');
const table = `evsync_legacy_${randomBytes(4).toString('hex')}`;

const MAPPING = `${USERS_MAPPING}      custom_data: { json: { vip: vip, registered: registered, birthday: birthday } }
`;

const JOB = `name: legacy
steps:
  - name: people
    mapping: ./legacy-users.yaml
    source:
      mysql:
        url_env: SOURCE_DB_URL
        name: attendees
        query: SELECT id AS client_id, email, first_name, last_name, vip, registered, birthday FROM ${table} ORDER BY id
`;

// A tester's find: a legacy MySQL schema reached the platform as base64 (a VARBINARY first
// name `Fayé` as `RmF5w6k=`, a BIT(1) flag as `AQ==`) and zero dates as `0000-00-00T00:00:00`.
describe.runIf(available)('a legacy MySQL schema synced (built CLI)', { timeout: 120_000 }, () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  let admin: mysql.Connection;

  beforeAll(async () => {
    admin = await mysql.createConnection(SERVICES.mariadb.url);
    await admin.query(`CREATE TABLE ${table} (id INT PRIMARY KEY, email VARCHAR(100),
      first_name VARBINARY(100), last_name BLOB, vip BIT(1), registered DATETIME NULL, birthday DATE NULL)`);
    await admin.query("SET SESSION sql_mode = ''");
    await admin.query(`INSERT INTO ${table} VALUES
      (1, 'fay@example.org', 'Fayé', 'Müller', b'1', '0000-00-00 00:00:00', '0000-00-00'),
      (2, 'gus@example.org', 'Gus', 'Ng', b'0', '2024-05-01 09:30:00', '1990-02-00')`);
    workspace = cliWorkspace('evsync-mysql-legacy-');
    sandbox = await workspace.sandbox();
    workspace.write({ 'legacy.yaml': JOB, 'legacy-users.yaml': MAPPING });
  });
  afterAll(async () => {
    await workspace?.close();
    await admin?.query(`DROP TABLE IF EXISTS ${table}`);
    await admin?.end();
  });

  it('sends text as text, BIT(1) as 0 or 1, and no zero date', async () => {
    const run = await workspace.run(sandbox, ['run', 'legacy.yaml'], { SOURCE_DB_URL: SERVICES.mariadb.url });
    expect(run.code, run.stderr).toBe(0);
    const users = sandbox.state
      .conferenceUsers()
      .map(({ firstName, lastName, email, customData }) => ({ firstName, lastName, email, customData }))
      .sort((a, b) => a.email.localeCompare(b.email));
    expect(users).toEqual([
      { firstName: 'Fayé', lastName: 'Müller', email: 'fay@example.org', customData: { vip: 1 } },
      {
        firstName: 'Gus',
        lastName: 'Ng',
        email: 'gus@example.org',
        customData: { vip: 0, registered: '2024-05-01T09:30:00' },
      },
    ]);
  });
});
