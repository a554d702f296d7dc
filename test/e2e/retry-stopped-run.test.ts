import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, startBuiltDashboard, type CliWorkspace } from '../helpers/built-cli.js';
import { people, usersCsv } from '../helpers/users-csv.js';

const TOKEN = 'retry-stopped-token-0123456789';
const JOB = (name: string, csv: string): string =>
  `name: ${name}\nsteps:\n  - { mapping: users, source: { csv: ./${csv} } }\n`;

// A night the platform was down: the run aborted with most rows never sent. A retry sent
// only the rows that failed before the abort and completed, exit 0: the job then had a
// "last success", `status --check` said OK and `notify:` said it had recovered, with most
// people not on the platform. A retry of a stopped run now says to finish it first, as the
// dashboard's run page does (resume, then retry). The built CLI, embedded ledger.
describe('a retry of a run that stopped before its end (built CLI)', () => {
  let ws: CliWorkspace;
  let sandbox: RunningSandbox;
  const onPlatform = (prefix: string): number =>
    sandbox.state.conferenceUsers().filter((user) => user.email.startsWith(prefix)).length;
  /** Runs `file` while the platform answers 503 to everything: exit 3, aborted; the platform is back after. */
  const runWhileDown = async (file: string): Promise<string> => {
    sandbox.faults.set({ error503: { fraction: 1 } });
    const stopped = await ws.run(sandbox, ['run', file]).finally(() => sandbox.faults.set({}));
    expect(stopped.code, stopped.stdout + stopped.stderr).toBe(3);
    return /^Run (\S+) \(\S+, upsert\): aborted/m.exec(stopped.stdout)![1]!;
  };

  beforeAll(async () => {
    ws = cliWorkspace('evsync-retry-stopped-');
    sandbox = await ws.sandbox();
  });
  afterAll(async () => ws?.close());

  it('is refused with the resume that finishes the run; after the resume, nothing is left', async () => {
    ws.write({ 'down.yaml': JOB('down', 'down.csv'), 'down.csv': usersCsv(people(60, 'dn')) });
    const runId = await runWhileDown('down.yaml');
    expect(onPlatform('dn')).toBe(0);

    const retry = await ws.run(sandbox, ['retry', runId]);
    expect(retry.code).toBe(2);
    expect(retry.stderr).toContain(
      `Cannot retry run ${runId}: it stopped before its end (aborted), and a retry sends only its failed rows. ` +
        `Finish it first: \`evsync resume ${runId}\` sends what it never sent`,
    );
    // The dashboard's retry page says the same before anyone presses it, and its POST refuses.
    const dashboard = await startBuiltDashboard({
      cwd: ws.dir,
      env: { ...ws.envFor(sandbox), EVSYNC_DASHBOARD_TOKEN: TOKEN },
    });
    try {
      const headers = { authorization: `Bearer ${TOKEN}` };
      const page = await (await fetch(`${dashboard.base}/runs/${runId}/retry`, { headers })).text();
      expect(page).toContain(`Cannot retry run ${runId}: it stopped before its end (aborted)`);
      expect(page).toContain(`href="/runs/${runId}/resume"`);
      expect(page).not.toContain(`action="/runs/${runId}/retry"`);
      const posted = await fetch(`${dashboard.base}/runs/${runId}/retry`, {
        method: 'POST',
        headers: { ...headers, accept: 'application/json', 'content-type': 'application/json' },
        body: '{}',
      });
      expect(posted.status).toBe(409);
      expect(await posted.text()).toContain('EVSYNC_RETRY_UNFINISHED_RUN');
    } finally {
      await dashboard.stop();
    }
    // Nothing was sent, and the job is still a problem, not a success.
    expect(onPlatform('dn')).toBe(0);
    const check = await ws.run(sandbox, ['status', '--check']);
    expect(check.code, check.stdout).toBe(1);
    expect(check.stdout).toMatch(/^PROBLEM down: last run \S+ aborted/);

    const resumed = await ws.run(sandbox, ['resume', runId]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(onPlatform('dn')).toBe(60);
    const after = await ws.run(sandbox, ['retry', runId]);
    expect(after.stdout + after.stderr).toContain(`Run ${runId} has no failed rows: nothing to retry.`);
    expect((await ws.run(sandbox, ['status', '--check'])).code).toBe(0);
  });

  it('says to run the job again when the stopped run never planned the rest of its sources', async () => {
    ws.write({ 'big.yaml': JOB('big', 'big.csv'), 'big.csv': usersCsv(people(5000, 'bg')) });
    const runId = await runWhileDown('big.yaml');
    const retry = await ws.run(sandbox, ['retry', runId]);
    expect(retry.code).toBe(2);
    expect(retry.stderr).toContain(
      'Its sources were not read to the end, so a resume would send only what was planned: run the job again (evsync run ',
    );
    expect(onPlatform('bg')).toBe(0);
  });
});
