import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistributedEnv, type CliProcess, type DistributedEnv } from '../helpers/distributed-env.js';
import { waitFor } from '../helpers/wait-for.js';
import { serviceAvailable } from '../helpers/services.js';
import { people, usersCsv } from '../helpers/users-csv.js';

// A worker paused past its job lock (SIGSTOP: a long GC pause, a suspended VM) while
// another worker finished its jobs and a newer run renamed everyone: on waking it must send
// nothing it held (docs/distributed.md, "A worker paused past its lock"). And a worker of
// another ledger refuses the jobs instead of acknowledging them. The built CLI.
const ready = (await serviceAvailable('redis')) && (await serviceAvailable('postgres'));
const USERS = 30;

describe.runIf(ready)('stale workers', () => {
  let env: DistributedEnv;
  const stopped: CliProcess[] = [];

  beforeAll(async () => {
    // The platform allows 4 calls/s where the job asks 12: workers hold intents in the
    // limiter's waits, as a rate-limited platform makes them do.
    env = await startDistributedEnv({ sandboxArgs: ['--rate-limit', '4/s'] });
  }, 120_000);
  afterAll(async () => {
    for (const worker of stopped) worker.child.kill('SIGCONT');
    await env?.close();
  }, 60_000);

  const lastNames = async (): Promise<string[]> => {
    const response = await fetch(`${env.sandbox.url}/_sandbox/state`);
    const state = (await response.json()) as {
      users?: Array<{ email: string; last_name?: string; lastName?: string }>;
    };
    return (state.users ?? [])
      .filter((user) => user.email.startsWith('fz'))
      .map((user) => user.last_name ?? user.lastName ?? '');
  };

  it('a worker woken after its lock expired sends nothing it held: no name goes back', async () => {
    const rows = people(USERS, 'fz');
    env.write({
      'frozen.csv': usersCsv(rows),
      'frozen.yaml':
        'name: frozen\nrate: { per_second: 12, concurrency: 6 }\nsteps:\n  - { mapping: users, source: { csv: ./frozen.csv } }\n',
    });
    const sleeper = env.startWorker(6);
    const first = env.spawnCli(['run', 'frozen.yaml']);
    await waitFor(async () => ((await env.sandbox.counters()).statuses['429'] ?? 0) >= 2);
    sleeper.child.kill('SIGSTOP');
    stopped.push(sleeper);
    // Another worker takes the paused one's jobs once their locks expire, and ends the run.
    const awake = env.startWorker(6);
    try {
      expect(await first.exited).toBe(0);
      // A newer run renames everyone; the paused worker still holds the older content.
      env.write({ 'frozen.csv': usersCsv(rows.map((row) => ({ ...row, last: 'Newer' }))) });
      const second = await env.cli(['run', 'frozen.yaml']);
      expect(second.code, second.output).toBe(0);
      const beforeWake = (await env.sandbox.counters()).total;
      sleeper.child.kill('SIGCONT');
      await sleep(6_000);
      // Woken, it sends nothing: each held write finds its lock gone, and is dropped.
      expect((await env.sandbox.counters()).total).toBe(beforeWake);
      const names = await lastNames();
      expect(names).toHaveLength(USERS);
      expect(names.filter((name) => name !== 'Newer')).toEqual([]);
      expect(sleeper.output(), sleeper.output().slice(-3000)).toContain('write dropped');
      expect((await env.sandbox.counters()).duplicates).toEqual({});
    } finally {
      for (const worker of [sleeper, awake]) {
        worker.child.kill('SIGCONT');
        worker.child.kill('SIGTERM');
        await worker.exited;
      }
    }
  }, 180_000);

  it('a worker of another ledger refuses the jobs, says so, and one of this ledger sends them', async () => {
    env.write({
      'ledgers.csv': usersCsv(people(20, 'lg')),
      'ledgers.yaml':
        'name: ledgers\nrate: { per_second: 100, concurrency: 4 }\nsteps:\n  - { mapping: users, source: { csv: ./ledgers.csv } }\n',
    });
    const postsBefore = (await env.sandbox.counters()).calls['POST /user'] ?? 0;
    const other = env.spawnCli(['worker'], { DATABASE_URL: await env.otherDatabase('elsewhere') });
    const run = env.spawnCli(['run', 'ledgers.yaml']);
    await waitFor(
      () => Promise.resolve(other.output().includes('refusing jobs of another ledger')),
      30_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${other.output().slice(-3000)}\n${run.output().slice(-3000)}`);
    });
    const status = await env.cli(['status']);
    expect(status.output).toMatch(/refuses ledger [0-9a-f]{8}: this worker's ledger is/);
    expect((await env.sandbox.counters()).calls['POST /user'] ?? 0).toBe(postsBefore);
    const right = env.startWorker(4);
    expect(await run.exited).toBe(0);
    const ledger = await env.ledger();
    const [done] = await ledger.listRuns(1);
    expect(done?.counts).toMatchObject({ created: 20 });
    for (const worker of [other, right]) {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
  }, 120_000);
});
