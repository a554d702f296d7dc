import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace, startBuiltDashboard, type BuiltDashboard } from '../helpers/built-cli.js';

const TOKEN = 'forget-cache-token-0123456789abcdef';

// A dashboard keeps the facts of a finished run (counts, error groups with an example each)
// once read. The build before kept them after the run's failed person was forgotten, by
// another process or by the dashboard itself: the run's page went on quoting their e-mail
// and name until the dashboard was restarted.
describe('a run page the dashboard read before a person of it was forgotten', () => {
  const ws = cliWorkspace('evsync-forget-cached-');
  let dashboard: BuiltDashboard | undefined;
  afterAll(async () => {
    await dashboard?.stop();
    await ws.close();
  });

  it('no longer quotes the person', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml':
        'name: cached\nmode: upsert\nsteps:\n  - { mapping: users, source: { csv: ./people.csv } }\n',
      'people.csv':
        'client_id,email,first_name,last_name\nok-1,ok@example.org,Oki,Okay\nbad-1,bea@@example.org,Bea,Badmail\n',
    });
    const run = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const runId = /^Run (\S+) /m.exec(run.stdout)![1]!;
    dashboard = await startBuiltDashboard({
      cwd: ws.dir,
      env: { ...ws.envFor(sandbox), EVSYNC_DASHBOARD_TOKEN: TOKEN },
    });
    const page = async (): Promise<string> => {
      const answer = await fetch(`${dashboard!.base}/runs/${runId}`, {
        headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
      });
      expect(answer.status).toBe(200);
      return answer.text();
    };
    expect(await page()).toContain('bea@@example.org');

    const forget = await ws.run(sandbox, ['forget', '--client-id', 'bad-1', '--job', 'job.yaml']);
    expect(forget.code, forget.stdout + forget.stderr).toBe(0);
    const after = await page();
    for (const needle of ['bea@@example.org', 'Badmail', '"bad-1"']) expect(after).not.toContain(needle);
  }, 120_000);
});
