import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait-for.js';
import { serviceAvailable } from '../helpers/services.js';
import { startDistributedEnv, type CliProcess, type DistributedEnv } from '../helpers/distributed-env.js';
import { people, usersCsv } from '../helpers/users-csv.js';

const ready = (await serviceAvailable('redis')) && (await serviceAvailable('postgres'));

// Issue 25, point 3: a resume started while the workers still hold the killed coordinator's
// check-in jobs waits for them; what that earlier pass records (posted, synced) is the
// outcome, not the resume's guess from their send marks.
describe.runIf(ready)('distributed mode: resuming a run whose check-ins are in flight', () => {
  let env: DistributedEnv;
  let workers: CliProcess[] = [];

  beforeAll(async () => {
    env = await startDistributedEnv();
    workers = [env.startWorker(6), env.startWorker(6)];
  }, 120_000);
  afterAll(async () => env?.close(), 60_000);

  it('the earlier pass posts them once and the resume keeps its results: exit 0', async () => {
    const users = people(40, 'ci');
    const rows = Array.from({ length: 400 }, (_, i) => {
      const user = users[i % users.length]!;
      return `ci-${i + 1},${user.id},,,"13.${i + 1000},52.5",Stand ${i + 1}`;
    });
    env.write({
      'ci-users.csv': usersCsv(users),
      'ci-check_ins.csv': `check_in_id,user_client_id,location_type,location_id,center,display_value\n${rows.join('\n')}\n`,
      'ci.yaml':
        'name: ci\nrate: { per_second: 200, concurrency: 12 }\nsteps:\n' +
        '  - { mapping: users, source: { csv: ./ci-users.csv } }\n' +
        '  - { mapping: check_ins, source: { csv: ./ci-check_ins.csv } }\n',
    });
    await fetch(`${env.sandbox.url}/_sandbox/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ spec: 'latency=300-600' }),
    });
    try {
      const run = env.spawnCli(['run', 'ci.yaml']);
      await waitFor(async () => ((await env.sandbox.counters()).calls['POST /check_in'] ?? 0) > 60);
      run.child.kill('SIGKILL');
      await run.exited;
      const ledger = await env.ledger();
      const [cut] = await ledger.listRuns(1);
      // The workers still hold the killed pass's check-in jobs (each answer takes 300–600 ms).
      const resumed = await env.cli(['resume', cut!.id]);
      expect(resumed.output).toContain('waiting for the jobs of an earlier pass');
      const counts = await ledger.resultCounts(cut!.id);
      expect(counts.check_in).toEqual({ created: 400 });
      expect(resumed.code).toBe(0);
      const state = (await (await fetch(`${env.sandbox.url}/_sandbox/state`)).json()) as {
        checkIns: Array<{ displayValue: string | null }>;
      };
      // Every row posted exactly once.
      const texts = state.checkIns.map((checkIn) => checkIn.displayValue);
      expect(texts).toHaveLength(400);
      expect(new Set(texts).size).toBe(400);
      expect((await env.sandbox.counters()).calls['POST /check_in']).toBe(400);
    } finally {
      await fetch(`${env.sandbox.url}/_sandbox/faults`, { method: 'DELETE' });
      for (const worker of workers) worker.child.kill('SIGTERM');
    }
  }, 180_000);
});
