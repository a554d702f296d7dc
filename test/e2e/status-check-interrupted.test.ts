import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace, spawnBuiltCli } from '../helpers/built-cli.js';
import { jobYaml, people, usersCsv } from '../helpers/users-csv.js';

// A person stops a run with Ctrl-C: the rows it never sent wait for `evsync resume`. The
// build before printed `OK 1 job on time and well; newest run … interrupted`, exit 0.
describe('evsync status --check after a run a person stopped (built CLI)', () => {
  const ws = cliWorkspace('evsync-check-interrupted-');
  afterAll(() => ws.close());

  it('is no problem, but does not call the job well and says how to finish it', async () => {
    // 25 ms per request at 60 requests/s: the run takes seconds, long enough to be stopped.
    const sandbox = await ws.sandbox({ faults: { latency: { minMs: 25, maxMs: 25 } } });
    ws.write({
      'users.csv': usersCsv(people(300, 'k')),
      'job.yaml': jobYaml('nightly', '  - { mapping: users, source: { csv: ./users.csv } }\n').replace(
        'per_second: 1000, concurrency: 8',
        'per_second: 60, concurrency: 4',
      ),
    });
    const child = spawnBuiltCli(['run', 'job.yaml'], { cwd: ws.dir, env: ws.envFor(sandbox) });
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const until = Date.now() + 120_000;
    while (sandbox.counters.callsTo('POST', '/user') < 30) {
      if (Date.now() > until) throw new Error('the run sent nothing');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGINT');
    expect(await exited).toBe(3);

    const check = await ws.run(sandbox, ['status', '--check']);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    const runId = /newest run (\S+) \(nightly\) interrupted at /.exec(check.stdout)?.[1];
    expect(runId, check.stdout).toBeDefined();
    expect(check.stdout).toBe(
      `OK 1 job on time, the last run of nightly stopped before its end (interrupted; finish it with: evsync resume ${runId}); ` +
        `newest run ${runId} (nightly) interrupted at ${/ at (\d{4}-\d\d-\d\d \d\d:\d\d)/.exec(check.stdout)?.[1]}\n`,
    );
    expect(check.stdout).not.toContain('well');

    // Finished with the command the line names: well again.
    const resumed = await ws.run(sandbox, ['resume', runId!]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    const after = await ws.run(sandbox, ['status', '--check']);
    expect(after.stdout).toMatch(/^OK 1 job on time and well; newest run \S+ \(nightly\) completed at /);
  }, 180_000);
});
