import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { PlatformClient } from '../../src/platform/platform-client.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { startSandbox } from '../../src/sandbox/start-sandbox.js';
import { resumeRun } from '../../src/sync/runs/resume-run.js';
import { SERVICES, serviceAvailable } from '../helpers/services.js';
import { jobYaml, people, usersCsv } from './sync-harness.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';
import { sandboxEnv, spawnBuiltCli } from '../helpers/built-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const postgresUp = await serviceAvailable('postgres');
const USERS = 300;

/** `evsync run` as a user starts it, in its own process, against the sandbox of this test. */
function spawnRun(dir: string, sandbox: RunningSandbox, env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawnBuiltCli(['run', join(dir, 'job.yaml')], {
    cwd: ROOT,
    env: { ...sandboxEnv(sandbox), EVSYNC_DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent', ...env },
  });
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out waiting for the spawned run to make progress');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** The client a resume in this process uses against the test's sandbox. */
function resumingClient(sandbox: RunningSandbox): PlatformClient {
  return new PlatformClient({
    baseUrl: sandbox.url,
    keyId: sandbox.keyId,
    signingKey: sandbox.signingKey,
    rateLimit: { requestsPerSecond: 2_000, concurrency: 8 },
  });
}

async function resumeInProcess(
  dir: string,
  sandbox: RunningSandbox,
  runId?: string,
): Promise<{ runId: string; status: string; total: number }> {
  const ledger = await openLedger({ dataDir: join(dir, 'data') });
  const client = resumingClient(sandbox);
  try {
    const id = runId ?? (await ledger.listRuns(1))[0]!.id;
    const summary = await resumeRun({ ledger, platform: client, concurrency: 8 }, id);
    const total = Object.values(summary.totals).reduce((a, b) => a + (b ?? 0), 0);
    return { runId: id, status: summary.run.status, total };
  } finally {
    await client.close();
    await ledger.close();
  }
}

const CHECK_INS = 200;

/** 20 users, then 200 check-ins (display_value = check_in_id), slow enough to be cut. */
function writeCheckInJob(dir: string): string[] {
  const rows = Array.from(
    { length: CHECK_INS },
    (_, i) => `ci${i + 1},k${(i % 20) + 1},,,"13.4,52.5",ci${i + 1}`,
  );
  writeFileSync(join(dir, 'users.csv'), usersCsv(people(20, 'k')));
  writeFileSync(
    join(dir, 'check-ins.csv'),
    `check_in_id,user_client_id,location_type,location_id,center,display_value\n${rows.join('\n')}\n`,
  );
  writeFileSync(
    join(dir, 'job.yaml'),
    jobYaml(
      'killable-check-ins',
      '  - { mapping: users, source: { csv: ./users.csv } }\n' +
        '  - { mapping: check_ins, source: { csv: ./check-ins.csv } }\n',
    ).replace('per_second: 1000, concurrency: 8', 'per_second: 60, concurrency: 4'),
  );
  return rows;
}

/** Starts the job, kills it with SIGKILL once 40 check-ins went out; the POSTs made by then. */
async function killDuringCheckIns(dir: string, sandbox: RunningSandbox): Promise<number> {
  const child = spawnRun(dir, sandbox);
  const done = exited(child);
  await waitFor(() => sandbox.counters.callsTo('POST', '/check_in') >= 40, 200_000);
  child.kill('SIGKILL');
  expect((await done).signal).toBe('SIGKILL');
  const posted = sandbox.counters.callsTo('POST', '/check_in');
  expect(posted).toBeLessThan(CHECK_INS);
  return posted;
}

/** Each check-in on the platform once: its display_value is its check_in_id. */
function expectNoCheckInTwice(sandbox: RunningSandbox): string[] {
  const onPlatform = [...sandbox.state.checkIns.values()].map((c) => c.displayValue ?? '');
  expect(onPlatform.filter((value, i) => onPlatform.indexOf(value) !== i)).toEqual([]);
  return onPlatform;
}

describe('interrupted runs (spawned evsync process)', () => {
  let dir: string;
  let sandbox: RunningSandbox;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evsync-kill-'));
    // 25 ms per request at 60 requests/s: the run takes seconds, long enough to be cut.
    sandbox = await startSandbox({ faults: { latency: { minMs: 25, maxMs: 25 } } });
    writeFileSync(join(dir, 'users.csv'), usersCsv(people(USERS, 'k')));
    writeFileSync(
      join(dir, 'job.yaml'),
      jobYaml('killable', '  - { mapping: users, source: { csv: ./users.csv } }\n').replace(
        'per_second: 1000, concurrency: 8',
        'per_second: 60, concurrency: 4',
      ),
    );
  });
  afterEach(async () => {
    await sandbox.close();
    await removeWorkspace(dir);
  });

  it('kill -9 mid-run loses nothing: resume completes every intent and creates nothing twice', async () => {
    const child = spawnRun(dir, sandbox);
    const done = exited(child);
    await waitFor(() => sandbox.counters.callsTo('POST', '/user') >= 80, 200_000);
    child.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');
    const createdBeforeKill = sandbox.state.conferenceUsers().length;
    expect(createdBeforeKill).toBeGreaterThan(0);
    expect(createdBeforeKill).toBeLessThan(USERS);
    // Still `running` in the ledger, and known to have lost its process (`evsync runs`: cut off).
    const ledger = await openLedger({ dataDir: join(dir, 'data') });
    const [killed] = await ledger.listRuns(1);
    expect(killed!.status).toBe('running');
    expect(await ledger.processGone(killed!)).toBe(true);
    await ledger.close();

    const resumed = await resumeInProcess(dir, sandbox);
    expect(resumed.status).toBe('completed');
    expect(resumed.total).toBe(USERS);
    expect(sandbox.counters.duplicates()).toEqual({});
    expect(sandbox.state.conferenceUsers().filter((u) => u.email.startsWith('k'))).toHaveLength(USERS);
  }, 300_000);

  it('kill -9 while check-ins are being posted: resume posts none twice and holds back those it cannot know', async () => {
    // Check-ins cannot be looked up (§4.1): a resume that re-posted one whose result was
    // still buffered at the kill would check the person in twice.
    const rows = writeCheckInJob(dir);
    const postedBeforeKill = await killDuringCheckIns(dir, sandbox);

    const resumed = await resumeInProcess(dir, sandbox);
    expect(resumed).toMatchObject({ status: 'completed', total: 20 + CHECK_INS });
    const onPlatform = expectNoCheckInTwice(sandbox);

    const ledger = await openLedger({ dataDir: join(dir, 'data') });
    const failed = await ledger.results(resumed.runId, { kinds: ['check_in'], actions: ['failed'] });
    await ledger.close();
    // Every check-in is on the platform or held back for an operator; none is lost silently.
    const held = failed.map((r) => r.key);
    expect(failed.every((r) => r.errorCode === 'EVSYNC_CHECK_IN_OUTCOME_UNKNOWN')).toBe(true);
    expect(
      failed.every((r) => r.errorMessage?.includes(`evsync retry ${resumed.runId} --client-id ${r.key}`)),
    ).toBe(true);
    const missing = rows.map((_, i) => `ci${i + 1}`).filter((key) => !onPlatform.includes(key));
    expect(missing.filter((key) => !held.includes(key))).toEqual([]);
    // At most the POSTs in flight or unrecorded at the kill are held back.
    expect(held.length).toBeLessThanOrEqual(postedBeforeKill + 4);
  }, 300_000);

  it('kill -9 during check-ins, then the job runs again before any resume: nothing is posted twice', async () => {
    writeCheckInJob(dir);
    await killDuringCheckIns(dir, sandbox);
    const ledger = await openLedger({ dataDir: join(dir, 'data') });
    const [killed] = await ledger.listRuns(1);
    const marked = (await ledger.pendingIntents(killed!.id, { kinds: ['check_in'] }))
      .filter((record) => record.sendStartedAt !== null)
      .map((record) => record.key);
    await ledger.close();
    expect(marked.length).toBeGreaterThan(0);

    // The nightly run comes first: it holds the marked check-ins back and posts the rest.
    const next = spawnRun(dir, sandbox);
    expect((await exited(next)).code).toBe(1);
    const onPlatform = expectNoCheckInTwice(sandbox);
    expect(onPlatform).toHaveLength(CHECK_INS - marked.filter((key) => !onPlatform.includes(key)).length);

    // Resuming the killed run afterwards posts nothing again: not what the next run posted,
    // not what was marked.
    const callsBefore = sandbox.counters.callsTo('POST', '/check_in');
    const resumed = await resumeInProcess(dir, sandbox, killed!.id);
    expect(resumed.status).toBe('completed');
    expect(sandbox.counters.callsTo('POST', '/check_in')).toBe(callsBefore);
    expectNoCheckInTwice(sandbox);
  }, 300_000);

  it('SIGINT stops taking work, finishes what is in flight, marks the run interrupted; resume finishes it', async () => {
    const child = spawnRun(dir, sandbox);
    const done = exited(child);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitFor(() => sandbox.counters.callsTo('POST', '/user') >= 60, 200_000);
    child.kill('SIGINT');
    const { code } = await done;
    expect(code).toBe(3);
    expect(stderr).toMatch(/stopping/);
    const callsAtExit = sandbox.counters.snapshot().total;

    const ledger = await openLedger({ dataDir: join(dir, 'data') });
    const [run] = await ledger.listRuns(1);
    const recorded = Object.values(await ledger.resultCounts(run!.id)).reduce(
      (sum, perKind) => sum + Object.values(perKind ?? {}).reduce((a, b) => a + (b ?? 0), 0),
      0,
    );
    await ledger.close();
    expect(run?.status).toBe('interrupted');
    // Every request that went out before the stop has its result: nothing was left in flight.
    expect(recorded).toBe(callsAtExit);

    const resumed = await resumeInProcess(dir, sandbox);
    expect(resumed).toMatchObject({ status: 'completed', total: USERS });
    expect(sandbox.counters.callsTo('POST', '/user')).toBe(USERS);
    expect(sandbox.counters.duplicates()).toEqual({});
  }, 300_000);

  it.runIf(postgresUp)(
    'on a shared PostgreSQL ledger, a live run cannot be resumed by another process; once killed, it can',
    async () => {
      const schema = `evsync_claim_${randomBytes(4).toString('hex')}`;
      const admin = new pg.Client({ connectionString: SERVICES.postgres.url });
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${schema}`);
      const child = spawnRun(dir, sandbox, {
        DATABASE_URL: `${SERVICES.postgres.url}?options=-c%20search_path%3D${schema}`,
      });
      const done = exited(child);
      const ledger = await openLedger({ databaseUrl: SERVICES.postgres.url, schema });
      const client = resumingClient(sandbox);
      try {
        await waitFor(() => sandbox.counters.callsTo('POST', '/user') >= 40, 200_000);
        const [run] = await ledger.listRuns(1);
        const deps = { ledger, platform: client, concurrency: 8 };
        // The job's lock comes first: a resume of any run of the job waits for the live one.
        await expect(resumeRun(deps, run!.id)).rejects.toMatchObject({ code: 'EVSYNC_JOB_BUSY' });
        child.kill('SIGKILL');
        expect((await done).signal).toBe('SIGKILL');
        // The killed process's session, and its claim, end with its socket.
        const resumed = await resumeRun(deps, run!.id);
        expect(resumed.run.status).toBe('completed');
        expect(sandbox.counters.duplicates()).toEqual({});
        expect(sandbox.state.conferenceUsers().filter((u) => u.email.startsWith('k'))).toHaveLength(USERS);
      } finally {
        child.kill('SIGKILL');
        await client.close();
        await ledger.close();
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await admin.end();
      }
    },
    300_000,
  );
});
