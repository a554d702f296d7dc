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
});
