import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, spawnBuiltCli, type CliWorkspace } from '../helpers/built-cli.js';
import { jobYaml, people, usersCsv } from '../helpers/users-csv.js';

const USERS = 1_500;

/**
 * `evsync resume` as users run it (the built CLI) of a run killed with SIGKILL half-way
 * through a phase read back from the ledger: the resume pages through the pending intents
 * (issue #28 item 3) and finishes the run, each contact once on the platform.
 */
describe('a resume through the built CLI of a run killed half-way through its contacts', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    workspace = cliWorkspace('evsync-resume-built-');
    sandbox = await workspace.sandbox();
  });
  afterAll(async () => workspace?.close());

  it('sends the other half and ends the run completed', async () => {
    const users = '  - { mapping: users, source: { csv: ./users.csv } }\n';
    workspace.write({
      'users.csv': usersCsv(people(USERS, 'kb')),
      'job.yaml': jobYaml('resume-built', users),
    });
    expect((await workspace.run(sandbox, ['run', 'job.yaml'])).code).toBe(0);
    const contact = sandbox.state.userByClientId('kb1')!.id;
    workspace.write({
      'contacts.yaml':
        'version: 1\nintents:\n  - kind: contact\n    params:\n      user_client_id: client_id\n' +
        `      contact_user_id: { column: first_contact, transforms: [{ default: '${contact}' }] }\n`,
      'job.yaml': jobYaml(
        'resume-built',
        `${users}  - { mapping: ./contacts.yaml, source: { csv: ./users.csv } }\n`,
      ),
    });
    sandbox.counters.reset();

    const child = spawnBuiltCli(['run', 'job.yaml'], { cwd: workspace.dir, env: workspace.envFor(sandbox) });
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | null>((done) =>
      child.once('exit', (_code, signal) => done(signal)),
    );
    while (sandbox.counters.snapshot().total < USERS / 2) await new Promise((wait) => setTimeout(wait, 10));
    child.kill('SIGKILL');
    // The exit event: a killed child not reaped yet still holds the embedded ledger's lock.
    expect(await exited).toBe('SIGKILL');
    const runId = /Run (\S+) /.exec(stdout)?.[1] ?? (await lastRunId());

    const resumed = await workspace.run(sandbox, ['resume', runId]);
    expect(resumed.stderr).not.toMatch(/"level":50/);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`Run ${runId} .*completed`));
    // Every user has its contact on the platform, once; none was created twice.
    for (let i = 1; i <= USERS; i += 1) {
      const user = sandbox.state.userByClientId(`kb${i}`)!;
      expect(sandbox.state.contactsOf(user.id).length).toBe(1);
    }
    expect(sandbox.counters.duplicates()).toEqual({});
  }, 240_000);

  async function lastRunId(): Promise<string> {
    const runs = await workspace.run(sandbox, ['runs', '--json']);
    return (JSON.parse(runs.stdout) as Array<{ id: string }>)[0]!.id;
  }
});
