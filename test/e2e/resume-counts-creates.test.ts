import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace, spawnBuiltCli } from '../helpers/built-cli.js';
import { jobYaml, people, usersCsv } from '../helpers/users-csv.js';

const USERS = 600;

// A run killed with SIGKILL after the platform made some users but before their results
// were recorded: the resume sends those creates again, the platform answers "taken", and
// the user is found by e-mail. The build before reported them "updated" ("the user was
// already in this conference"), though the conference was empty before the run.
describe('a resume of an import killed half-way', () => {
  const ws = cliWorkspace('evsync-resume-creates-');
  afterAll(() => ws.close());

  it('counts every user it made as created, and none twice', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'users.csv': usersCsv(people(USERS, 'rc')),
      'job.yaml': jobYaml('resume-creates', '  - { mapping: users, source: { csv: ./users.csv } }\n'),
    });
    const child = spawnBuiltCli(['run', 'job.yaml'], { cwd: ws.dir, env: ws.envFor(sandbox) });
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | null>((done) =>
      child.once('exit', (_code, signal) => done(signal)),
    );
    while (sandbox.counters.snapshot().total < USERS / 2) await new Promise((wait) => setTimeout(wait, 5));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const runId = /Run (\S+) /.exec(stdout)?.[1] ?? 'latest';

    const resumed = await ws.run(sandbox, ['resume', runId]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(sandbox.counters.duplicates()).toEqual({});
    expect(sandbox.state.conferenceUsers()).toHaveLength(USERS);
    const report = await ws.run(sandbox, ['report', runId, '--format', 'json']);
    const rows = JSON.parse(report.stdout) as Array<{ action: string; message: string | null }>;
    const actions: Record<string, number> = {};
    for (const row of rows) actions[row.action] = (actions[row.action] ?? 0) + 1;
    expect(actions).toEqual({ created: USERS });
  }, 120_000);
});
