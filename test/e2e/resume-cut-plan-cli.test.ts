import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, spawnBuiltCli, type CliWorkspace } from '../helpers/built-cli.js';
import { people, usersCsv } from '../helpers/users-csv.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Issue #41 point 11, first half, through the built CLI: a run killed (-9) while its sources
 * were still being planned, then resumed twice. Both resumes say how many intents were
 * planned by then; the second one said "the 0 intents planned by then", because the first
 * had finished them and they had left the plan.
 */
const USERS = 20_000;

describe('resume twice after a kill -9 during planning (issue #41 point 11)', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    workspace = cliWorkspace('evsync-cut-plan-');
    sandbox = await workspace.sandbox();
    writeFileSync(join(workspace.dir, 'users.csv'), usersCsv(people(USERS, 'cut')));
    // A slow send keeps the streamed plan from reading the whole file before the kill.
    writeFileSync(
      join(workspace.dir, 'job.yaml'),
      'name: cut\nrate: { per_second: 100, concurrency: 2 }\nsteps:\n  - { mapping: users, source: { csv: users.csv } }\n',
    );
  });
  afterAll(async () => workspace.close());

  it('says the same count of intents planned by then, twice', async () => {
    const child = spawnBuiltCli(['run', 'job.yaml'], { cwd: workspace.dir, env: workspace.envFor(sandbox) });
    const exited = new Promise<number | null>((done) => child.once('exit', done));
    await waitFor(async () => Promise.resolve(sandbox.counters.callsTo('POST', '/user') >= 50), 60_000);
    child.kill('SIGKILL');
    await exited;
    const runs = await workspace.run(sandbox, ['runs', '--json']);
    const [run] = JSON.parse(runs.stdout) as Array<{ id: string }>;
    const said = (text: string): number => {
      const found = /the ([\d,]+) intents planned by then/.exec(text);
      return found === null ? -1 : Number(found[1]!.replaceAll(',', ''));
    };
    const first = await workspace.run(sandbox, ['resume', run!.id]);
    const planned = said(first.stdout + first.stderr);
    expect(planned, first.stdout + first.stderr).toBeGreaterThan(0);
    expect(planned).toBeLessThan(USERS);
    const second = await workspace.run(sandbox, ['resume', run!.id]);
    expect(said(second.stdout + second.stderr), second.stdout + second.stderr).toBe(planned);
    expect(second.code).toBe(first.code);
    expect(sandbox.counters.duplicates()).toEqual({});
  }, 240_000);
});
