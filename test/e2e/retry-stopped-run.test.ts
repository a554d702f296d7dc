import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, spawnBuiltCli, startBuiltDashboard, type CliWorkspace } from '../helpers/built-cli.js';
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

  // A reviewing helper's two regressions of the refusal: a run the delete threshold stopped
  // had read its sources whole and left nothing unsent, and a run killed while posting
  // check-ins is the one the next run names for their lost answers.
  it('retries a mirror run the delete threshold stopped: it read its sources whole', async () => {
    const job = 'name: mir\nmode: mirror\nsteps:\n  - { mapping: users, source: { csv: ./mir.csv } }\n';
    ws.write({ 'mir.yaml': job, 'mir.csv': usersCsv(people(20, 'mr')) });
    expect((await ws.run(sandbox, ['run', 'mir.yaml'])).code).toBe(0);
    // Half the people left the source (above the threshold), one new row is invalid.
    const bad = { id: 'mr99', email: 'mr99@@example.org', first: 'Bad', last: 'Mail' };
    ws.write({ 'mir.csv': usersCsv([...people(10, 'mr'), bad]) });
    const stopped = await ws.run(sandbox, ['run', 'mir.yaml']);
    expect(stopped.code, stopped.stdout + stopped.stderr).toBe(3);
    // A resume has nothing to send, and says why the run stays aborted: not a plan cut short.
    const resumed = await ws.run(sandbox, ['resume', 'latest']);
    expect(resumed.code).toBe(3);
    expect(resumed.stdout + resumed.stderr).toContain(
      'the delete threshold stopped the run after its sources were read: what it planned is finished',
    );
    expect(resumed.stdout).toMatch(/^Re-send them once the cause is fixed: +evsync retry /m);
    expect(resumed.stdout + resumed.stderr).not.toMatch(/never planned nor sent|Finish the run first/);

    ws.write({ 'mir.csv': usersCsv([...people(10, 'mr'), { ...bad, email: 'mr99@example.org' }]) });
    const retry = await ws.run(sandbox, ['retry', 'latest']);
    expect(retry.code, retry.stdout + retry.stderr).toBe(0);
    expect(sandbox.state.userByClientId('mr99')?.email).toBe('mr99@example.org');
    // The threshold still holds: nobody was deleted.
    expect(onPlatform('mr')).toBe(21);
  });

  it('sends the lost check-in the next run names, by the retry of the killed run it names', async () => {
    const rows = Array.from(
      { length: 200 },
      (_, i) => `ci${i + 1},k${(i % 20) + 1},,,"13.4,52.5",ci${i + 1}`,
    );
    ws.write({
      'k.csv': usersCsv(people(20, 'k')),
      'check-ins.csv': `check_in_id,user_client_id,location_type,location_id,center,display_value\n${rows.join('\n')}\n`,
      'held.yaml':
        'name: held\nrate: { per_second: 60, concurrency: 4 }\nsteps:\n' +
        '  - { mapping: users, source: { csv: ./k.csv } }\n' +
        '  - { mapping: check_ins, source: { csv: ./check-ins.csv } }\n',
    });
    sandbox.faults.set({ latency: { minMs: 25, maxMs: 25 } });
    const child = spawnBuiltCli(['run', 'held.yaml'], { cwd: ws.dir, env: ws.envFor(sandbox) });
    const exited = new Promise((done) => child.on('exit', done));
    const deadline = Date.now() + 120_000;
    while (sandbox.counters.callsTo('POST', '/check_in') < 40 && Date.now() < deadline)
      await new Promise((wait) => setTimeout(wait, 20));
    child.kill('SIGKILL');
    await exited;
    sandbox.faults.set({});

    const next = await ws.run(sandbox, ['run', 'held.yaml']);
    expect(next.code, next.stdout + next.stderr).toBe(1);
    const report = await ws.run(sandbox, ['report', 'latest', '--status', 'failed']);
    const command = /`(evsync retry \S+ --client-id \S+(?: --resend-unknown)?)`/.exec(report.stdout)?.[1];
    expect(command, report.stdout).toBeDefined();
    const retry = await ws.run(sandbox, command!.split(' ').slice(1));
    expect(retry.code, retry.stdout + retry.stderr).toBe(0);
  }, 240_000);
});
