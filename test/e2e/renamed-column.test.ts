import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { USERS_MAPPING } from '../helpers/users-csv.js';

const JOB = `name: renamed
steps:
  - { mapping: ./my-users.yaml, source: { csv: ./people.csv } }
`;
const PEOPLE = [
  'client_id,E-mail address,first_name,last_name',
  'a-1,ann@example.org,Ann,Lee',
  'a-2,bo@example.org,Bo,Ek',
  'a-3,cy@example.org,Cy,Ng',
  '',
].join('\n');
const SAID =
  'the source\'s header has no column "email", so no row has it: its columns are "client_id", "E-mail address", "first_name", "last_name". ' +
  'Rename "E-mail address" in the source to "email", or add the source\'s name for it to the mapping: column: ["email", "E-mail address"]';

interface ReportRow {
  action: string;
  error_code: string | null;
  message: string | null;
}

// An organiser's find: the registration export renamed `email` to `E-mail address`, the
// mapping still named `email`, and `validate` said of every row that the e-mail address
// was missing (`run` recorded the same, REQUIRED): people went looking for empty cells
// that were full. Both now say the header lacks the column, with its columns and the fix;
// `validate` says it once.
describe('a column renamed in the source (built CLI)', () => {
  const ws = cliWorkspace('evsync-renamed-column-');
  afterAll(() => ws.close());

  it('is said missing from the header by validate, once, and by run on each row', async () => {
    const sandbox = await ws.sandbox();
    ws.write({ 'job.yaml': JOB, 'my-users.yaml': USERS_MAPPING, 'people.csv': PEOPLE });

    const validated = await ws.run(sandbox, ['validate', 'job.yaml']);
    expect(validated.code, validated.stdout + validated.stderr).toBe(1);
    expect(validated.stdout).toContain(
      `  MAPPING_COLUMN_MISSING in email: 3 rows\n    row 1 (line 2), email: ${SAID}\n    … and 2 more, the same\n`,
    );
    expect(validated.stdout.split(SAID)).toHaveLength(2);
    expect(validated.stdout).not.toMatch(/is required, but it is missing/);

    const ran = await ws.run(sandbox, ['run', 'job.yaml', '--json']);
    expect(ran.code, ran.stdout + ran.stderr).toBe(1);
    const runId = (JSON.parse(ran.stdout) as { runId: string }).runId;
    const report = await ws.run(sandbox, ['report', runId, '--format', 'json']);
    const rows = JSON.parse(report.stdout) as ReportRow[];
    expect(rows).toHaveLength(3);
    for (const [n, row] of rows.entries())
      expect(row).toMatchObject({
        action: 'failed',
        error_code: 'MAPPING_COLUMN_MISSING',
        message: `row ${n + 1} (line ${n + 2}), email: ${SAID}`,
      });
    expect(sandbox.counters.snapshot().calls['POST /user'] ?? 0).toBe(0);
  }, 120_000);
});
