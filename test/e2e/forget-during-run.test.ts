import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace, spawnBuiltCli } from '../helpers/built-cli.js';
import { waitFor } from '../helpers/wait-for.js';

const USERS = 40;
const people = [
  'client_id,email,first_name,last_name',
  ...Array.from({ length: USERS }, (_, i) => `p-${i},p${i}@example.org,Pat,Number${i}`),
  'late-1,lena.late@example.org,Lena,Late',
  '',
].join('\n');

// A GDPR request handled while the nightly run is being sent: the run's process holds the
// person's planned row in memory. The build before erased the person, said so (exit 0), and
// the run then created them on the platform and wrote them back into the ledger.
describe('evsync forget while a run of the conference is in flight', () => {
  const ws = cliWorkspace('evsync-forget-in-flight-');
  afterAll(() => ws.close());

  it('is refused, and done once the run has ended', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml':
        'name: nightly\nmode: upsert\nrate: { per_second: 50, concurrency: 2 }\n' +
        'steps:\n  - { mapping: users, source: { csv: ./people.csv } }\n',
      'people.csv': people,
    });
    sandbox.faults.set({ latency: { minMs: 150, maxMs: 150 } });
    const child = spawnBuiltCli(['run', 'job.yaml'], { cwd: ws.dir, env: ws.envFor(sandbox) });
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.once('exit', done));
    await waitFor(async () => Promise.resolve(sandbox.counters.callsTo('POST', '/user') >= 2), 60_000);

    const refused = await ws.run(sandbox, ['forget', '--client-id', 'late-1', '--job', 'job.yaml']);
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);

    expect(refused.stderr).toMatch(/Run \S+ of job nightly is being sent in this conference/);

    expect(await exited, stdout).toBe(0);
    sandbox.faults.set({});
    expect(sandbox.state.userByEmail('lena.late@example.org')?.inConference).toBe(true);
    const forgotten = await ws.run(sandbox, ['forget', '--client-id', 'late-1', '--job', 'job.yaml']);
    expect(forgotten.code, forgotten.stdout + forgotten.stderr).toBe(0);
    expect(sandbox.state.userByEmail('lena.late@example.org')?.inConference).not.toBe(true);

    const next = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(next.code, next.stdout + next.stderr).toBe(0);
    expect(sandbox.state.userByEmail('lena.late@example.org')?.inConference).not.toBe(true);
  }, 120_000);

  // Forgotten between a kill -9 of the run and its resume: the run's plan stands under a
  // marker, params gone. The build before resumed it as a create with empty params: a POST
  // refused 422 (first name required), exit 1, and every retry of the run sent it again.
  it('is never sent by the resume of a run cut off before reaching them', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'cut.yaml':
        'name: cut\nmode: upsert\nrate: { per_second: 50, concurrency: 2 }\n' +
        'steps:\n  - { mapping: users, source: { csv: ./people.csv } }\n',
    });
    sandbox.faults.set({ latency: { minMs: 150, maxMs: 150 } });
    const child = spawnBuiltCli(['run', 'cut.yaml'], { cwd: ws.dir, env: ws.envFor(sandbox) });
    const exited = new Promise((done) => child.once('exit', done));
    await waitFor(async () => Promise.resolve(sandbox.counters.callsTo('POST', '/user') >= 4), 60_000);
    child.kill('SIGKILL');
    await exited;
    sandbox.faults.set({});
    const forgotten = await ws.run(sandbox, ['forget', '--client-id', 'late-1', '--job', 'cut.yaml']);
    expect(forgotten.code, forgotten.stdout + forgotten.stderr).toBe(0);

    const listed = JSON.parse((await ws.run(sandbox, ['runs', '--json'])).stdout) as Array<{
      id: string;
      status: string;
    }>;
    const cutOff = listed.find((run) => run.status === 'running')!;
    sandbox.counters.reset();
    const resumed = await ws.run(sandbox, ['resume', cutOff.id]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(sandbox.state.userByEmail('lena.late@example.org')?.inConference).not.toBe(true);
    expect(
      sandbox.state.conferenceUsers().filter((user) => user.clientIds[0]?.startsWith('p-')),
    ).toHaveLength(USERS);
    const report = await ws.run(sandbox, ['report', cutOff.id, '--status', 'skipped', '--format', 'json']);
    const skipped = JSON.parse(report.stdout) as Array<{ key: string; error_code: string }>;
    expect(skipped.filter((row) => row.error_code === 'EVSYNC_ERASED')).toHaveLength(1);
  }, 120_000);
});
