import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace, spawnBuiltCli } from '../helpers/built-cli.js';
import { waitFor } from '../helpers/wait-for.js';

const people = (count: number): string =>
  [
    'client_id,email,first_name,last_name',
    ...Array.from({ length: count }, (_, i) => `p-${i},p${i}@example.org,Pat,Number${i}`),
    '',
  ].join('\n');

// Killed mid-run (kill -9), the organiser cuts the export down (refunds) and runs the job
// again: that run reads the sources whole and completes. `evsync runs` still lists the
// killed run as cut off, and the build before resumed it as planned: the refunded people
// it had not reached yet were created after all, in upsert mode for good.
describe('a resume of a run that a later run of the job has superseded', () => {
  const ws = cliWorkspace('evsync-resume-superseded-');
  afterAll(() => ws.close());

  it('sends nothing of its stale plan, and says why for each row', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml':
        'name: nightly\nmode: upsert\nrate: { per_second: 50, concurrency: 2 }\n' +
        'steps:\n  - { mapping: users, source: { csv: ./people.csv } }\n',
      'people.csv': people(60),
    });
    sandbox.faults.set({ latency: { minMs: 100, maxMs: 100 } });
    const child = spawnBuiltCli(['run', 'job.yaml'], { cwd: ws.dir, env: ws.envFor(sandbox) });
    const exited = new Promise((done) => child.once('exit', done));
    await waitFor(async () => Promise.resolve(sandbox.counters.callsTo('POST', '/user') >= 10), 60_000);
    child.kill('SIGKILL');
    await exited;
    sandbox.faults.set({});
    const killed = sandbox.state.conferenceUsers().length;
    expect(killed).toBeLessThan(40);

    // Rows 40 to 59 are refunded; the next run sends the rest.
    ws.write({ 'people.csv': people(40) });
    const next = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(next.code, next.stdout + next.stderr).toBe(0);
    expect(sandbox.state.conferenceUsers()).toHaveLength(40);

    const runs = await ws.run(sandbox, ['runs', '--json']);
    const listed = JSON.parse(runs.stdout) as Array<{ id: string; status: string; supersededBy?: string }>;
    const cutOff = listed.find((run) => run.status === 'running')!;
    expect(cutOff.supersededBy).toBe(listed[0]!.id);
    expect((await ws.run(sandbox, ['runs'])).stdout).toContain(
      `superseded by run ${listed[0]!.id}, which read the sources whole since: nothing left to send (evsync resume ${cutOff.id} closes it)`,
    );
    const resumed = await ws.run(sandbox, ['resume', cutOff.id]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(sandbox.state.conferenceUsers()).toHaveLength(40);
    const report = await ws.run(sandbox, ['report', cutOff.id, '--status', 'skipped', '--format', 'json']);
    const skipped = JSON.parse(report.stdout) as Array<{ key: string; error_code: string }>;
    expect(skipped.filter((row) => row.error_code === 'EVSYNC_RUN_SUPERSEDED').map((row) => row.key)).toEqual(
      expect.arrayContaining(['p-40', 'p-59']),
    );
  }, 120_000);
});
