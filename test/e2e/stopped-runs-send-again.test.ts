import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { applySeed } from '../../src/sandbox/sandbox-seed.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { startSandbox } from '../../src/sandbox/start-sandbox.js';
import { runCli } from '../helpers/run-cli.js';
import { sandboxCounters, stubCliEnv } from './cli-in-process.js';
import { EVENT_MAPPING } from './conference-fixture.js';
import { jobYaml, people, usersCsv } from './sync-harness.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';

const EVENT = '2026-06-01T09:00:00Z,2026-06-01T10:00:00Z,Track 1';

// What a stopped run failed or skipped for reasons that were not the rows' own is sent
// again: by `resume` after the platform refused our key, by `retry` for the dependents of
// a retried parent. `evsync` as a user types it, against a sandbox over real HTTP.
describe('a stopped run sends again what was not the rows’ fault', () => {
  let sandbox: RunningSandbox;
  let dir: string;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(async () => sandbox.close());
  afterEach(async () => {
    vi.unstubAllEnvs();
    await removeWorkspace(dir);
  });
  const startIn = (files: Record<string, string>): void => {
    dir = mkdtempSync(join(tmpdir(), 'evsync-send-again-'));
    stubCliEnv(sandbox, join(dir, 'data'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  };
  /** Runs `job.yaml` with a wrong signing key: exit 3, aborted. Answers the output and the run id; the right key is back. */
  const runWithWrongKey = async (jobName: string): Promise<{ stdout: string; runId: string }> => {
    vi.stubEnv('EVSYNC_SIGNING_KEY', 'not-the-key');
    const stopped = await runCli('run', join(dir, 'job.yaml'));
    vi.stubEnv('EVSYNC_SIGNING_KEY', sandbox.signingKey);
    expect(stopped.code).toBe(3);
    const runId = new RegExp(`^Run (\\S+) \\(${jobName}, upsert\\): aborted`, 'm').exec(stopped.stdout)![1]!;
    return { stdout: stopped.stdout, runId };
  };

  /** Runs `job.yaml` while the platform answers 503 to everything: exit 3; the platform is back after. */
  const runWhilePlatformDown = async (): Promise<{ stdout: string }> => {
    sandbox.faults.set({ error503: { fraction: 1 } });
    const stopped = await runCli('run', join(dir, 'job.yaml')).finally(() => sandbox.faults.set({}));
    expect(stopped.code).toBe(3);
    return stopped;
  };

  it('a wrong signing key stops the run after a streak of 401s (exit 3); resume with the right key sends every row', async () => {
    startIn({
      'users.csv': usersCsv(people(60, 'wk')),
      'job.yaml': jobYaml('wrong-key', '  - { mapping: users, source: { csv: ./users.csv } }\n'),
    });
    const stopped = await runWithWrongKey('wrong-key');
    expect(stopped.stdout).toMatch(/refused the signature of 16 intents in a row/);
    expect(stopped.stdout).toMatch(/Check EVSYNC_KEY_ID and EVSYNC_SIGNING_KEY/);
    // Only the streak (and what was in flight) was tried; none of it reached the platform.
    const refused = (await sandboxCounters(sandbox)).calls['POST /user'] ?? 0;
    expect(refused).toBeGreaterThanOrEqual(16);
    expect(refused).toBeLessThan(60);
    expect(sandbox.state.conferenceUsers().filter((u) => u.email.startsWith('wk'))).toEqual([]);

    const resumed = await runCli('resume', stopped.runId);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/^user +60 +0 +0 +0 +0 +0 +0$/m);
    expect(sandbox.state.conferenceUsers().filter((u) => u.email.startsWith('wk'))).toHaveLength(60);
    expect((await sandboxCounters(sandbox)).duplicates).toEqual({});
  });

  it('a job reading its key from variables of its own is told to check those, not EVSYNC_*', async () => {
    startIn({
      'users.csv': usersCsv(people(40, 'ok')),
      'job.yaml': jobYaml(
        'own-key',
        '  - { mapping: users, source: { csv: ./users.csv } }\n',
        'platform: { base_url_env: CONF_A_URL, key_id_env: CONF_A_KEY_ID, signing_key_env: CONF_A_SIGNING_KEY }\n',
      ),
    });
    vi.stubEnv('CONF_A_URL', sandbox.url);
    vi.stubEnv('CONF_A_KEY_ID', String(sandbox.keyId));
    vi.stubEnv('CONF_A_SIGNING_KEY', 'not-the-key');
    const stopped = await runCli('run', join(dir, 'job.yaml'));
    expect(stopped.code).toBe(3);
    expect(stopped.stdout).toMatch(/refused the signature of \d+ intents in a row/);
    expect(stopped.stdout).toContain('Check CONF_A_KEY_ID and CONF_A_SIGNING_KEY (`evsync doctor ');
    expect(stopped.stdout).not.toMatch(/EVSYNC_(KEY_ID|SIGNING_KEY)|evsync ping/);
    // The run keeps the same words: what `runs`, the dashboard and its notice say.
    const ledger = await openLedger({ dataDir: join(dir, 'data') });
    try {
      const [run] = await ledger.listRuns(1);
      expect(String(run?.options.aborted)).toContain('CONF_A_SIGNING_KEY');
    } finally {
      await ledger.close();
    }
  });

  it('a platform answering 503 to everything stops the run after a streak (exit 3); resume sends every row', async () => {
    startIn({
      'users.csv': usersCsv(people(60, 'dn')),
      'job.yaml': jobYaml('platform-down', '  - { mapping: users, source: { csv: ./users.csv } }\n'),
    });
    const stopped = await runWhilePlatformDown();
    expect(stopped.stdout).toMatch(/the platform failed \(5xx\) for 16 intents in a row, after its retries/);
    expect(stopped.stdout).toMatch(/answered 503/);
    const runId = /^Run (\S+) \(platform-down, upsert\): aborted/m.exec(stopped.stdout)![1]!;
    // Each failed intent took the client's 5 tries; the rest were never sent.
    expect((await sandboxCounters(sandbox)).calls['POST /user'] ?? 0).toBeLessThan(60 * 5);

    const resumed = await runCli('resume', runId);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/^user +60 +0 +0 +0 +0 +0 +0$/m);
    expect((await sandboxCounters(sandbox)).duplicates).toEqual({});
  });

  it('a big run stopped before its sources were read says to run the job again, which sends the rest once', async () => {
    startIn({
      'users.csv': usersCsv(people(5000, 'bg')),
      'job.yaml': jobYaml('big-down', '  - { mapping: users, source: { csv: ./users.csv } }\n'),
    });
    const stopped = await runWhilePlatformDown();
    expect(stopped.stdout).toContain(
      'Its sources were not read to the end, so a resume would send only what was planned: run the job again',
    );
    expect(stopped.stdout).not.toContain('Finish it with: evsync resume');
    // Its failed rows go with that run of the job: no retry, which refuses a run cut short.
    expect(stopped.stdout).toContain(
      'Running the job again (above) sends them again too, once their cause is fixed.',
    );
    expect(stopped.stdout).not.toContain(`evsync retry ${/^Run (\S+) /m.exec(stopped.stdout)![1]!}`);

    const again = await runCli('run', join(dir, 'job.yaml'));
    expect(again.code).toBe(0);
    expect(sandbox.state.conferenceUsers().filter((u) => u.email.startsWith('bg'))).toHaveLength(5000);
    expect((await sandboxCounters(sandbox)).duplicates).toEqual({});
  });

  it('a run too small for the streak, every row refused the key: aborted with exit 3, and resume sends it', async () => {
    startIn({
      'users.csv': usersCsv(people(2, 'sk')),
      'job.yaml': jobYaml('small-wrong-key', '  - { mapping: users, source: { csv: ./users.csv } }\n'),
    });
    const stopped = await runWithWrongKey('small-wrong-key');
    expect(stopped.stdout).toMatch(/refused the signature of 2 intents in a row/);
    const resumed = await runCli('resume', stopped.runId);
    expect(resumed.code).toBe(0);
    expect(sandbox.state.conferenceUsers().filter((u) => u.email.startsWith('sk'))).toHaveLength(2);
  });

  it('resume sends passwords again, read from the source; a row changed since waits for the next run', async () => {
    const mapping = [
      'version: 1',
      'intents:',
      '  - kind: user',
      '    params: { client_id: client_id, email: email, first_name: first_name, last_name: last_name, password: password }',
      '',
    ].join('\n');
    const csv = (secondName: string): string =>
      `client_id,email,first_name,last_name,password\npw1,pw1@example.org,Pat,One,s3cret-one\npw2,pw2@example.org,${secondName},Two,s3cret-two\n`;
    startIn({
      'pw-users.yaml': mapping,
      'users.csv': csv('Sam'),
      'job.yaml': jobYaml('pw-resume', '  - { mapping: ./pw-users.yaml, source: { csv: ./users.csv } }\n'),
    });
    const { runId } = await runWithWrongKey('pw-resume');
    writeFileSync(join(dir, 'users.csv'), csv('Samuel'));
    const resumed = await runCli('resume', runId);
    expect(resumed.code).toBe(1);
    expect(sandbox.state.userByClientId('pw1')?.hasPassword).toBe(true);
    expect(sandbox.state.userByClientId('pw2')).toBeUndefined();
    const report = await runCli('report', runId, '--status', 'failed', '--format', 'json');
    expect(JSON.parse(report.stdout)).toMatchObject([
      {
        key: 'pw2',
        error_code: 'EVSYNC_SECRET_NOT_RESTORED',
        message: expect.stringMatching(
          /user\[svc_auth_attributes\]\[password\] .*has changed in the job’s source/,
        ),
      },
    ]);
    expect(report.stdout).not.toContain('s3cret');

    const next = await runCli('run', join(dir, 'job.yaml'));
    expect(next.code).toBe(0);
    expect(sandbox.state.userByClientId('pw2')).toMatchObject({ firstName: 'Samuel', hasPassword: true });
  });

  it('retry of a failed session also sends the speaker links skipped because of it', async () => {
    startIn({
      'users.csv': usersCsv(people(2, 'rd')),
      'events.csv': `client_id,name,description,start,finish,track,sponsor\nrde1,Sponsored,About,${EVENT},sp-rd\nrde2,Plain,About,${EVENT},\n`,
      'speakers.csv': 'event_client_id,user_client_id\nrde1,rd1\nrde1,rd2\nrde2,rd1\n',
      'events-map.yaml': EVENT_MAPPING,
      'job.yaml': jobYaml(
        'retry-dependents',
        [
          '  - { mapping: users, source: { csv: ./users.csv } }',
          '  - { mapping: ./events-map.yaml, source: { csv: ./events.csv } }',
          '  - { mapping: speakers, source: { csv: ./speakers.csv } }',
          '',
        ].join('\n'),
      ),
    });
    const first = await runCli('run', join(dir, 'job.yaml'));
    expect(first.code).toBe(1);
    expect(first.stdout).toMatch(/^event +1 +0 +0 +0 +0 +0 +1$/m);
    expect(first.stdout).toMatch(/^speaker +1 +0 +0 +0 +0 +2 +0$/m);
    const runId = /^Run (\S+) \(retry-dependents, upsert\): completed/m.exec(first.stdout)![1]!;

    applySeed(sandbox.state, { exhibitors: [{ name: 'Sponsor RD', client_ids: ['sp-rd'] }] });
    const retried = await runCli('retry', runId, '--client-id', 'rde1');
    expect(retried.code).toBe(0);
    expect(retried.stdout).toMatch(/^event +1 +0 +0 +0 +0 +0 +0$/m);
    expect(retried.stdout).toMatch(/^speaker +2 +0 +0 +0 +0 +0 +0$/m);
    const session = sandbox.state.eventByClientId('rde1')!;
    expect(session.speakers).toHaveLength(2);

    const ledger = await openLedger({ dataDir: join(dir, 'data') });
    const [retry] = await ledger.listRuns(1);
    // Three intents sent by the retry; completed, it keeps their results, not its plan (docs/ledger.md).
    expect((await ledger.results(retry!.id)).map((r) => r.action)).toEqual(['created', 'created', 'created']);
    expect(await ledger.countPlanned(retry!.id)).toBe(0);
    await ledger.close();
  });
});
