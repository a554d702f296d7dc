import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';
import { startWebhookReceiver } from '../helpers/notice-receivers.js';
import { SERVICES, serviceAvailable } from '../helpers/services.js';

const available = await serviceAvailable('postgres');
const SECRET = 'mid-run-hook-secret-7';

// Rows 1 to 1000 come with the first fetch (the source reads 1000 at a time); row 1200
// divides by zero, so the query fails at its second fetch, after the run has started.
const JOB = `name: fromdb
steps:
  - mapping: users
    source:
      postgres:
        url_env: SOURCE_DATABASE_URL
        name: attendees
        query: >-
          SELECT 'p' || g AS client_id, 'p' || g || '@example.org' AS email, 'Ann' AS first_name,
          'N' || (g / (CASE WHEN g = 1200 THEN 0 ELSE 1 END)) AS last_name
          FROM generate_series(1, 1500) AS g
notify:
  channels:
    - webhook: { url_env: HOOK_URL, secret_env: HOOK_SECRET }
  retry: { attempts: 1 }
`;

// Issue #41 point 11: a query failing at its second fetch exited 2 ("fix the query") while
// the run was recorded and notified as aborted. One outcome now, said the same way: the
// run aborted (exit 3), its cause and next step in the CLI, the ledger and the notice.
describe.runIf(available)(
  'a source query that fails at its second fetch (built CLI)',
  { timeout: 120_000 },
  () => {
    let workspace: CliWorkspace;
    let sandbox: RunningSandbox;
    let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;

    beforeAll(async () => {
      workspace = cliWorkspace('evsync-mid-run-');
      sandbox = await workspace.sandbox();
      hook = await startWebhookReceiver(SECRET);
      workspace.write({ 'fromdb.yaml': JOB });
    });

    afterAll(async () => {
      await hook?.close();
      await workspace?.close();
    });

    it('is an aborted run in the exit code, the message, the ledger and the notice', async () => {
      const run = await workspace.run(sandbox, ['run', 'fromdb.yaml'], {
        SOURCE_DATABASE_URL: SERVICES.postgres.url,
        HOOK_URL: hook.url,
        HOOK_SECRET: SECRET,
      });
      expect(run.code, run.stderr).toBe(3);
      const said = /evsync: (Run (\S+) aborted: (.*))$/m.exec(run.stderr);
      expect(said, run.stderr).not.toBeNull();
      const [, message, runId, rest] = said!;
      expect(rest).toContain('query "attendees" failed in PostgreSQL: division by zero');
      expect(message).toContain('run the job again (`evsync run ');

      const listed = JSON.parse((await workspace.run(sandbox, ['runs', '--json'])).stdout) as Array<{
        id: string;
        status: string;
        options: Record<string, unknown>;
      }>;
      expect(listed[0]).toMatchObject({
        id: runId,
        status: 'aborted',
        options: { abortCode: 'SOURCE_QUERY_FAILED' },
      });
      const nextStep = listed[0]!.options.nextStep as string;
      expect(message).toContain(nextStep);

      const [notice] = hook.received.map((m) => m.body);
      expect(notice).toMatchObject({
        event: 'problem',
        run: { id: runId, status: 'aborted' },
        cause: { title: 'source failed', code: 'SOURCE_QUERY_FAILED', action: nextStep },
      });
    });
  },
);
