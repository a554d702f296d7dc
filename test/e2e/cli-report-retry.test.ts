import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { applySeed } from '../../src/sandbox/sandbox-seed.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { startSandbox } from '../../src/sandbox/start-sandbox.js';
import { runCli } from '../helpers/run-cli.js';
import { sandboxCounters, stubCliEnv } from './cli-in-process.js';
import { EVENT_MAPPING } from './conference-fixture.js';
import { jobYaml } from './sync-harness.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';

const EVENT = '2026-06-01T09:00:00Z,2026-06-01T10:00:00Z,Track 1';

/**
 * One run with something of everything: sessions whose client_ids a spreadsheet would run
 * as formulas, two sessions the platform refuses (their sponsor does not exist yet), two
 * contacts it refuses (no such exhibitor), and a row that fails the mapping.
 */
const FILES = {
  'users.csv':
    'client_id,email,first_name,last_name\nrt1,rt1@example.org,Ann,One\nrt2,rt2@example.org,Bo,Two\nrtbad,nope,Cy,Three\n',
  'events.csv': [
    'client_id,name,description,start,finish,track,sponsor',
    `=1+2,Formula,About,${EVENT},`,
    `+cmd,Plus,About,${EVENT},`,
    `-5,Minus,About,${EVENT},`,
    `@SUM(A1),At,About,${EVENT},`,
    `rte1,Sponsored 1,About,${EVENT},sp-r`,
    `rte2,Sponsored 2,About,${EVENT},sp-r`,
    '',
  ].join('\n'),
  'contacts.csv': 'user_client_id,contact_user_id,exhibitor_id,action\nrt1,,999999,\nrt2,,999998,\n',
  'events-map.yaml': EVENT_MAPPING,
  'job.yaml': jobYaml(
    'rr',
    [
      '  - { mapping: users, source: { csv: ./users.csv } }',
      '  - { mapping: ./events-map.yaml, source: { csv: ./events.csv } }',
      '  - { mapping: contacts, source: { csv: ./contacts.csv } }',
      '',
    ].join('\n'),
  ),
};

// `evsync report` and `evsync retry` as a user types them, in this process, against a
// sandbox over real HTTP and an embedded ledger. The tests run in order on one ledger.
describe('evsync report and evsync retry', () => {
  let dir: string;
  let sandbox: RunningSandbox;
  let runId: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evsync-cli-report-'));
    sandbox = await startSandbox();
    stubCliEnv(sandbox, join(dir, 'data'));
    for (const [name, text] of Object.entries(FILES)) writeFileSync(join(dir, name), text);
    const run = await runCli('run', join(dir, 'job.yaml'));
    expect(run.code).toBe(1);
    runId = /^Run (\S+) \(rr, upsert\): completed/.exec(run.stdout)![1]!;
    expect(run.stdout).toMatch(/^event +4 +0 +0 +0 +0 +0 +2$/m);
    expect(run.stdout).toMatch(/^contact +0 +0 +0 +0 +0 +0 +2$/m);
  }, 120_000);
  afterAll(async () => {
    vi.unstubAllEnvs();
    await sandbox.close();
    await removeWorkspace(dir);
  });

  it('report --format csv neutralises cells that start with = + - @; json keeps the values as they are', async () => {
    const csv = await runCli('report', runId, '--format', 'csv');
    expect(csv.code).toBe(0);
    const rows = csv.stdout.split('\r\n').filter(Boolean);
    expect(rows).toHaveLength(1 + 3 + 6 + 2);
    const keys = rows.slice(1).map((row) => row.split(',')[3]);
    expect(keys).toEqual(expect.arrayContaining(["'=1+2", "'+cmd", "'-5", "'@SUM(A1)", 'rte1', 'rt1']));
    // A row that failed the mapping is keyed by its client_id; its name and e-mail are shown.
    expect(keys).toContain('rtbad');
    expect(rows.find((row) => row.split(',')[3] === 'rtbad')).toMatch(/,Cy Three,nope$/);
    for (const row of rows.slice(1)) expect(row.split(',').some((cell) => /^[=+\-@]/.test(cell))).toBe(false);

    const json = await runCli('report', runId, '--format', 'json');
    expect(json.code).toBe(0);
    const results = JSON.parse(json.stdout) as Array<{ key: string; kind: string; action: string }>;
    expect(
      results
        .filter((r) => r.kind === 'event')
        .map((r) => r.key)
        .sort(),
    ).toEqual(['+cmd', '-5', '=1+2', '@SUM(A1)', 'rte1', 'rte2']);

    const failed = await runCli('report', runId, '--status', 'failed');
    expect(failed.stdout.split('\r\n').filter(Boolean)).toHaveLength(1 + 5);
    expect((await runCli('report', runId, '--format', 'xml')).code).toBe(2);
  });

  it('retry refuses a bad filter with exit 2, and says so when nothing matches', async () => {
    const callsBefore = (await sandboxCounters(sandbox)).total;
    const badKind = await runCli('retry', runId, '--kind', 'session');
    expect(badKind.code).toBe(2);
    expect(badKind.stderr).toMatch(/--kind session: use user, event, /);
    const badSince = await runCli('retry', runId, '--since', 'yesterday');
    expect(badSince.code).toBe(2);
    expect(badSince.stderr).toMatch(/--since "yesterday" is not a time/);
    expect((await runCli('retry', 'no-such-run')).code).toBe(2);

    // Users failed only in the mapping (never planned): read again, the row still fails.
    const users = await runCli('retry', runId, '--kind', 'user');
    expect(users.code).toBe(1);
    expect(users.stdout).toBe(
      `Run ${runId}: nothing to retry of that filter: its failed rows cannot be sent yet.\n` +
        'Not sent: user rtbad still fails: row 3 (line 4), email: "nope" is not an e-mail address.\n',
    );
    // The rest failed before this instant.
    for (const filter of [
      ['--client-id', 'rt1'],
      ['--since', new Date(Date.now() + 60_000).toISOString()],
      ['--kind', 'contact', '--client-id', 'rte1'],
    ]) {
      const none = await runCli('retry', runId, ...filter);
      expect(none.code).toBe(0);
      expect(none.stdout).toBe(`Run ${runId} has no failed rows matching that filter: nothing to retry.\n`);
    }
    // `latest` names the newest run, as `report latest` does.
    const latest = await runCli('retry', 'latest', '--client-id', 'rt1');
    expect(latest.code).toBe(0);
    expect(latest.stdout).toBe(`Run ${runId} has no failed rows matching that filter: nothing to retry.\n`);
    expect((await sandboxCounters(sandbox)).total).toBe(callsBefore);
    expect(JSON.parse((await runCli('runs', '--json')).stdout)).toHaveLength(1);
  });

  it('a --report that cannot be written is exit 2 before anything is sent or recorded', async () => {
    const callsBefore = (await sandboxCounters(sandbox)).total;
    const runsBefore = (JSON.parse((await runCli('runs', '--json')).stdout) as unknown[]).length;
    const missing = join(dir, 'no-such-folder', 'r.csv');
    for (const args of [
      ['run', join(dir, 'job.yaml'), '--report', missing],
      ['resume', runId, '--report', missing],
      ['retry', runId, '--report', missing],
    ]) {
      const refused = await runCli(...args);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        `Cannot write the report ${missing}: the folder ${join(dir, 'no-such-folder')} does not exist`,
      );
    }
    expect((await sandboxCounters(sandbox)).total).toBe(callsBefore);
    expect(JSON.parse((await runCli('runs', '--json')).stdout)).toHaveLength(runsBefore);
    // Nothing to retry writes no report: an empty file would read as a run without results.
    const none = join(dir, 'none.csv');
    expect((await runCli('retry', runId, '--client-id', 'rt1', '--report', none)).code).toBe(0);
    expect(existsSync(none)).toBe(false);
    // A writable one gets every result of the run (resuming a completed run sends nothing).
    const done = join(dir, 'done.json');
    const resumed = await runCli('resume', runId, '--report', done);
    expect(resumed.stdout).toContain(`Report: 11 rows in ${done}`);
    expect(JSON.parse(readFileSync(done, 'utf8'))).toHaveLength(11);
    expect((await sandboxCounters(sandbox)).total).toBe(callsBefore);
  });

  it('retry --client-id re-sends just those intents, --kind just that kind, each as a new run', async () => {
    applySeed(sandbox.state, { exhibitors: [{ name: 'Sponsor R', client_ids: ['sp-r'] }] });
    const before = await sandboxCounters(sandbox);

    const one = await runCli('retry', runId, '--client-id', 'rte1');
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^event +1 +0 +0 +0 +0 +0 +0$/m);
    expect(one.stdout).not.toMatch(/^contact /m);
    let after = await sandboxCounters(sandbox);
    expect(after.total - before.total).toBe(1);
    expect(sandbox.state.eventByClientId('rte1')).toBeDefined();
    expect(sandbox.state.eventByClientId('rte2')).toBeUndefined();

    // rte1 is still failed in the first run, but the retry before synced it as planned: it is
    // recorded unchanged, not sent again (docs/sync-engine.md, "Retry").
    const events = await runCli('retry', runId, '--kind', 'event');
    expect(events.code).toBe(0);
    expect(events.stdout).toMatch(/^event +1 +0 +0 +1 +0 +0 +0$/m);
    after = await sandboxCounters(sandbox);
    expect(after.calls['POST /role/contacts'] ?? 0).toBe(before.calls['POST /role/contacts'] ?? 0);
    expect(after.duplicates).toEqual({});
    expect(sandbox.state.eventByClientId('rte2')).toBeDefined();

    // A link's key works as --client-id too. Its exhibitor still does not exist: it fails again.
    const contacts = await runCli('retry', runId, '--kind', 'contact', '--client-id', 'rt1/exhibitor:999999');
    expect(contacts.code).toBe(1);
    expect(contacts.stdout).toMatch(/^contact +0 +0 +0 +0 +0 +0 +1$/m);
    expect((await sandboxCounters(sandbox)).calls['POST /role/contacts']).toBe(
      (before.calls['POST /role/contacts'] ?? 0) + 1,
    );

    const runs = JSON.parse((await runCli('runs', '--json')).stdout) as Array<{
      options: { retryOf?: string; filter?: unknown };
    }>;
    expect(runs).toHaveLength(4);
    expect(runs.slice(0, 3).map((r) => r.options.retryOf)).toEqual([runId, runId, runId]);
    expect(runs[0]?.options.filter).toEqual({ kinds: ['contact'], keys: ['rt1/exhibitor:999999'] });
  });
});
