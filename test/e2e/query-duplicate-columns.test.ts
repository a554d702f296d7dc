import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';
import { SERVICES, serviceAvailable } from '../helpers/services.js';

const postgresUp = await serviceAvailable('postgres');
const mariadbUp = await serviceAvailable('mariadb');

/** Dora's row, joined with her assistant's contact: two columns named `email`. */
const QUERY =
  "SELECT 'dora-1' AS client_id, 'dora@example.org' AS email, 'Dora' AS first_name, " +
  "'Diaz' AS last_name, 'assistant@example.org' AS email";

function job(kind: 'postgres' | 'mysql'): string {
  return `name: dup_${kind}
steps:
  - name: people
    mapping: users
    source:
      ${kind}:
        url_env: SOURCE_DB_URL
        name: people
        query: "${QUERY}"
`;
}

// A tester's find: pg and mysql2 make each row an object, so the second `email` of a join
// replaced the first and Dora's account was created with her assistant's address, exit 0.
// Like a CSV header naming a column twice, such a query now stops before any row is used.
describe('a query returning two columns of one name (built CLI)', { timeout: 120_000 }, () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-dup-columns-');
    sandbox = await workspace.sandbox();
    workspace.write({ 'pg.yaml': job('postgres'), 'my.yaml': job('mysql') });
  });
  afterAll(async () => {
    await workspace?.close();
  });

  const cases = [
    { kind: 'PostgreSQL', file: 'pg.yaml', up: postgresUp, url: () => SERVICES.postgres.url },
    { kind: 'MySQL', file: 'my.yaml', up: mariadbUp, url: () => SERVICES.mariadb.url },
  ];
  for (const { kind, file, up, url } of cases) {
    it.runIf(up)(`${kind}: validate, doctor and run refuse it, naming the column`, async () => {
      const env = { SOURCE_DB_URL: url() };
      const said = `query "people" returns the same column name more than once in ${kind}: "email" (columns 2, 5)`;

      const validated = await workspace.run(sandbox, ['validate', file], env);
      expect(validated.code, validated.stderr).toBe(2);
      expect(validated.stderr).toContain(said);
      expect(validated.stderr).toContain('AS');

      const doctor = await workspace.run(sandbox, ['doctor', file], env);
      expect(doctor.stdout).toMatch(/FAIL\s+step people\s+query "people" returns the same column name/);

      const run = await workspace.run(sandbox, ['run', file], env);
      expect(run.code, run.stderr).not.toBe(0);
      expect(run.stderr).toContain(said);
      expect(sandbox.state.conferenceUsers()).toEqual([]);
    });
  }
});
