import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/open-ledger.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { startSandbox } from '../../src/sandbox/start-sandbox.js';
import { SERVICES, serviceAvailable } from '../helpers/services.js';
import { jobYaml, people, usersCsv } from './sync-harness.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';
import { sandboxEnv, spawnBuiltCli } from '../helpers/built-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const postgresUp = await serviceAvailable('postgres');
const USERS = 20;
const CHECK_INS = 300;

interface Spawned {
  child: ChildProcess;
  /** Resolves when the process has exited (and been reaped), with what it printed. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** `evsync …` as a user starts it, in a process of its own, against this test's sandbox. */
function evsync(dir: string, sandbox: RunningSandbox, env: NodeJS.ProcessEnv, ...args: string[]): Spawned {
  const child = spawnBuiltCli(args, {
    cwd: ROOT,
    env: { ...sandboxEnv(sandbox), EVSYNC_DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const done = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolveDone) => child.once('close', (code, signal) => resolveDone({ code, signal, stdout, stderr })));
  return { child, done };
}

/** Waits for `condition`; a process it depends on that ends first fails the wait at once, saying why. */
async function waitFor(
  condition: () => boolean,
  timeoutMs: number,
  what: string,
  running?: Spawned,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  let ended: { code: number | null; stderr: string } | undefined;
  void running?.done.then((result) => (ended = result));
  while (!condition()) {
    if (ended !== undefined) throw new Error(`${what} ended (exit ${ended.code}): ${ended.stderr}`);
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * 20 users, then 300 check-ins (display_value = check_in_id): at 25 requests/s, more than
 * ten seconds of work, time for the other processes of a test to start beside it.
 */
function writeCheckInJob(dir: string, name: string): void {
  const rows = Array.from(
    { length: CHECK_INS },
    (_, i) => `ci${i + 1},k${(i % USERS) + 1},,,"13.4,52.5",ci${i + 1}`,
  );
  writeFileSync(join(dir, 'users.csv'), usersCsv(people(USERS, 'k')));
  writeFileSync(
    join(dir, 'check-ins.csv'),
    `check_in_id,user_client_id,location_type,location_id,center,display_value\n${rows.join('\n')}\n`,
  );
  writeFileSync(
    join(dir, 'job.yaml'),
    jobYaml(
      name,
      '  - { mapping: users, source: { csv: ./users.csv } }\n' +
        '  - { mapping: check_ins, source: { csv: ./check-ins.csv } }\n',
    ).replace('per_second: 1000, concurrency: 8', 'per_second: 25, concurrency: 4'),
  );
}

/**
 * The platform answers slowly while `work` runs (a second per call), then as before: the
 * first run is still in progress whatever the machine's speed while the processes started
 * beside it look at it. On a loaded machine a 12-second run was sometimes over before they
 * had even started, and they found nothing to refuse.
 */
async function whileFirstRunCrawls<T>(sandbox: RunningSandbox, work: () => Promise<T>): Promise<T> {
  sandbox.faults.set({ latency: { minMs: 1_000, maxMs: 1_000 } });
  try {
    return await work();
  } finally {
    sandbox.faults.set({ latency: { minMs: 20, maxMs: 20 } });
  }
}

/** Each check-in of the job on the platform exactly once. */
function expectEachCheckInOnce(sandbox: RunningSandbox): void {
  const onPlatform = [...sandbox.state.checkIns.values()].map((c) => c.displayValue ?? '');
  expect(onPlatform.filter((value, i) => onPlatform.indexOf(value) !== i)).toEqual([]);
  expect(new Set(onPlatform).size).toBe(CHECK_INS);
}

describe('one run of a job at a time (spawned evsync processes)', () => {
  let dir: string;
  let sandbox: RunningSandbox;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evsync-job-lock-'));
    sandbox = await startSandbox({ faults: { latency: { minMs: 20, maxMs: 20 } } });
  });
  afterEach(async () => {
    await sandbox.close();
    await removeWorkspace(dir);
  });

  describe.runIf(postgresUp)('on a shared PostgreSQL ledger', () => {
    let schema: string;
    let admin: pg.Client;
    let env: NodeJS.ProcessEnv;
    beforeEach(async () => {
      schema = `evsync_joblock_${randomBytes(4).toString('hex')}`;
      admin = new pg.Client({ connectionString: SERVICES.postgres.url });
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${schema}`);
      env = { DATABASE_URL: `${SERVICES.postgres.url}?options=-c%20search_path%3D${schema}` };
    });
    afterEach(async () => {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    });

    it('a second `evsync run` of the job exits 2 naming the run in progress; a resume of it too; each check-in is posted once', async () => {
      writeCheckInJob(dir, 'two-at-once');
      const first = evsync(dir, sandbox, env, 'run', join(dir, 'job.yaml'));
      try {
        await waitFor(
          () => sandbox.counters.callsTo('POST', '/check_in') >= 10,
          200_000,
          'the first run',
          first,
        );
        const ledger = await openLedger({ databaseUrl: SERVICES.postgres.url, schema });
        const [running] = await ledger.listRuns(1);
        await ledger.close();
        const [listing, second, resume] = await whileFirstRunCrawls(sandbox, async () => {
          const runs = await evsync(dir, sandbox, env, 'runs').done;
          return [
            runs,
            ...(await Promise.all([
              evsync(dir, sandbox, env, 'run', join(dir, 'job.yaml')).done,
              evsync(dir, sandbox, env, 'resume', running!.id).done,
            ])),
          ];
        });
        expect(listing.stdout).toMatch(
          new RegExp(`^${running!.id} +two-at-once +\\S+ +manual +upsert +running `, 'm'),
        );
        expect(listing.stdout).not.toContain('cut off');
        expect(second.code).toBe(2);
        expect(second.stderr).toMatch(
          /Job "two-at-once" is already being run by run \d{8}-\d{6}-[0-9a-f]{4} \(process \d+ on [^,]+, since [^)]+\)/,
        );
        expect(second.stderr).toContain(`run ${running!.id} `);
        expect(second.stderr).toMatch(/--wait.*kill \d+/s);
        expect(resume.code).toBe(2);
        expect(resume.stderr).toContain(`Job "two-at-once" is already being run by run ${running!.id}`);
        expect((await first.done).code).toBe(0);
      } finally {
        first.child.kill('SIGKILL');
      }
      expectEachCheckInOnce(sandbox);
    }, 300_000);

    it('`evsync run --wait` waits for the run in progress, then finds nothing left to send', async () => {
      writeCheckInJob(dir, 'waiting');
      const first = evsync(dir, sandbox, env, 'run', join(dir, 'job.yaml'));
      let second: Spawned | undefined;
      try {
        await waitFor(
          () => sandbox.counters.callsTo('POST', '/check_in') >= 10,
          200_000,
          'the first run',
          first,
        );
        second = evsync(dir, sandbox, env, 'run', '--wait', join(dir, 'job.yaml'));
        const firstDone = await first.done;
        const secondDone = await second.done;
        expect(secondDone.stderr).toMatch(
          /evsync: job "waiting" is being run by (run \S+|another evsync process) \(process \d+.*\); waiting for it to end/,
        );
        expect(firstDone.code).toBe(0);
        expect(secondDone.code).toBe(0);
        // The second planned after the first had finished: everything was unchanged.
        expect(secondDone.stdout).toMatch(new RegExp(`^check_in +0 +0 +0 +${CHECK_INS} +0 +0 +0$`, 'm'));
      } finally {
        first.child.kill('SIGKILL');
        second?.child.kill('SIGKILL');
      }
      expectEachCheckInOnce(sandbox);
    }, 300_000);

    it('kill -9 of the run holding the job lets a new run and a resume of it go ahead at once', async () => {
      writeFileSync(join(dir, 'users.csv'), usersCsv(people(300, 'k')));
      writeFileSync(
        join(dir, 'job.yaml'),
        jobYaml('killed-holder', '  - { mapping: users, source: { csv: ./users.csv } }\n').replace(
          'per_second: 1000, concurrency: 8',
          'per_second: 60, concurrency: 4',
        ),
      );
      const first = evsync(dir, sandbox, env, 'run', join(dir, 'job.yaml'));
      await waitFor(() => sandbox.counters.callsTo('POST', '/user') >= 40, 200_000, 'the first run', first);
      first.child.kill('SIGKILL');
      expect((await first.done).signal).toBe('SIGKILL');
      const ledger = await openLedger({ databaseUrl: SERVICES.postgres.url, schema });
      const [killed] = await ledger.listRuns(1);
      await ledger.close();
      expect(killed!.status).toBe('running');
      const listing = await evsync(dir, sandbox, env, 'runs').done;
      expect(listing.stdout).toMatch(
        new RegExp(`^${killed!.id} +killed-holder +\\S+ +manual +upsert +cut off `, 'm'),
      );
      expect(listing.stdout).toContain(`finish it with: evsync resume ${killed!.id}`);

      const sentBefore = sandbox.counters.callsTo('POST', '/user');
      const rerunning = evsync(dir, sandbox, env, 'run', join(dir, 'job.yaml'));
      await waitFor(
        () => sandbox.counters.callsTo('POST', '/user') >= sentBefore + 20,
        200_000,
        'the second run',
        rerunning,
      );
      // The second run holds the job's lock: the killed one is still cut off, the second running.
      const during = await evsync(dir, sandbox, env, 'runs').done;
      expect(during.stdout).toMatch(
        new RegExp(`^${killed!.id} +killed-holder +\\S+ +manual +upsert +cut off `, 'm'),
      );
      expect(during.stdout).toMatch(/^\S+ +killed-holder +\S+ +manual +upsert +running /m);
      const rerun = await rerunning.done;
      expect(rerun.stderr).toBe('');
      expect(rerun.code).toBe(0);
      const resumed = await evsync(dir, sandbox, env, 'resume', killed!.id).done;
      expect(resumed.code).toBe(0);
      expect(sandbox.counters.duplicates()).toEqual({});
      expect(sandbox.state.conferenceUsers().filter((u) => u.email.startsWith('k'))).toHaveLength(300);
    }, 300_000);
  });

  // The embedded ledger serves every process at once: the job's lock, not the folder, is what
  // keeps a second run of the job out (docs/ledger.md, "Where it lives").
  it('on the embedded ledger, a second run of the job exits 2 naming the first, and with --wait goes on after it', async () => {
    writeCheckInJob(dir, 'embedded-two');
    const first = evsync(dir, sandbox, {}, 'run', join(dir, 'job.yaml'));
    let waiting: Spawned | undefined;
    try {
      await waitFor(
        () => sandbox.counters.callsTo('POST', '/check_in') >= 10,
        200_000,
        'the first run',
        first,
      );
      const [started, refused] = await whileFirstRunCrawls(sandbox, async () => {
        const wait = evsync(dir, sandbox, {}, 'run', '--wait', join(dir, 'job.yaml'));
        return [wait, await evsync(dir, sandbox, {}, 'run', join(dir, 'job.yaml')).done] as const;
      });
      waiting = started;
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(
        new RegExp(
          `Job "embedded-two" is already being run by run \\S+ .*--wait.*kill ${first.child.pid}`,
          's',
        ),
      );
      expect((await first.done).code).toBe(0);
      const second = await waiting.done;
      expect(second.stderr).toMatch(/job "embedded-two" is being run by run \S+.*; waiting for it to end/);
      expect(second.code).toBe(0);
    } finally {
      first.child.kill('SIGKILL');
      waiting?.child.kill('SIGKILL');
    }
    expectEachCheckInOnce(sandbox);
  }, 300_000);
});
