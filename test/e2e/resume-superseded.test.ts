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
      `superseded by run ${listed[0]!.id}, which read its rows from the source again since: nothing left to send (evsync resume ${cutOff.id} closes it)`,
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

  // The same with retries: a retry of a failed run is killed, the organiser renames people in
  // the export, and a second retry of that run syncs every row as "New". The build before
  // counted only whole runs as superseding: the resume of the killed retry sent its "Old"
  // names over the second retry's.
  it('of a retry sends nothing once a later retry of the same run took its rows', async () => {
    const sandbox = await ws.sandbox();
    const rows = (email: (i: number) => string, last: string): string =>
      [
        'client_id,email,first_name,last_name',
        ...Array.from({ length: 40 }, (_, i) => `r-${i},${email(i)},Pat,${last}${i}`),
        '',
      ].join('\n');
    ws.write({
      'retry.yaml':
        'name: retried\nmode: upsert\nrate: { per_second: 50, concurrency: 2 }\n' +
        'steps:\n  - { mapping: users, source: { csv: ./retried.csv } }\n',
      'retried.csv': rows((i) => `r${i}@`, 'Old'),
    });
    const failed = await ws.run(sandbox, ['run', 'retry.yaml']);
    expect(failed.code, failed.stdout + failed.stderr).toBe(1);
    const base = (JSON.parse((await ws.run(sandbox, ['runs', '--json'])).stdout) as Array<{ id: string }>)[0]!
      .id;

    ws.write({ 'retried.csv': rows((i) => `r${i}@example.org`, 'Old') });
    sandbox.faults.set({ latency: { minMs: 100, maxMs: 100 } });
    const child = spawnBuiltCli(['retry', base], { cwd: ws.dir, env: ws.envFor(sandbox) });
    const exited = new Promise((done) => child.once('exit', done));
    await waitFor(async () => Promise.resolve(sandbox.counters.callsTo('POST', '/user') >= 5), 60_000);
    child.kill('SIGKILL');
    await exited;
    sandbox.faults.set({});

    ws.write({ 'retried.csv': rows((i) => `r${i}@example.org`, 'New') });
    const again = await ws.run(sandbox, ['retry', base]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const names = (): string[] =>
      sandbox.state
        .conferenceUsers()
        .filter((user) => user.clientIds[0]?.startsWith('r-'))
        .map((user) => user.lastName);
    expect(names().filter((name) => name.startsWith('Old'))).toEqual([]);

    const listed = JSON.parse((await ws.run(sandbox, ['runs', '--json'])).stdout) as Array<{
      id: string;
      status: string;
    }>;
    const cutOff = listed.find((run) => run.status === 'running')!;
    const resumed = await ws.run(sandbox, ['resume', cutOff.id]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(names()).toHaveLength(40);
    expect(names().filter((name) => name.startsWith('Old'))).toEqual([]);
  }, 120_000);
});
