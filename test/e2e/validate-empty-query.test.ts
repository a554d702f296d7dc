import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';
import { SERVICES, serviceAvailable } from '../helpers/services.js';

const postgresUp = await serviceAvailable('postgres');
const mariadbUp = await serviceAvailable('mariadb');

function job(kind: 'postgres' | 'mysql'): string {
  return `name: empty_${kind}
steps:
  - mapping: users
    source:
      ${kind}:
        url_env: SOURCE_DB_URL
        name: attendees
        query: "SELECT 'a1' AS client_id, 'ann@example.org' AS email, 'Ann' AS first_name, 'Ng' AS last_name FROM (SELECT 1 AS one) t WHERE t.one = 2"
`;
}

// A tester's find: `run` warned that a query "yielded no rows", as the README promises for
// every source, but `validate` of the same job said nothing (and no warning in --json).
describe('validate of a query that finds no rows (built CLI)', { timeout: 120_000 }, () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-empty-query-');
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
    it.runIf(up)(`${kind}: warns as run does, in the summary and in --json`, async () => {
      const env = { SOURCE_DB_URL: url() };
      const said = `${kind} query "attendees" (URL from SOURCE_DB_URL) yielded no rows`;

      const validated = await workspace.run(sandbox, ['validate', file], env);
      expect(validated.code, validated.stderr).toBe(0);
      expect(validated.stdout).toContain(`  ! ${said}\n`);

      const json = await workspace.run(sandbox, ['validate', file, '--json'], env);
      const steps = (JSON.parse(json.stdout) as { steps: Array<{ rowsRead: number; warnings: string[] }> })
        .steps;
      expect(steps).toEqual([expect.objectContaining({ rowsRead: 0, warnings: [said] })]);

      const run = await workspace.run(sandbox, ['run', file], env);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(`"msg":${JSON.stringify(`step 1: ${said}`)}`);
    });
  }
});
