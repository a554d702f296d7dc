import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { clientIdOfPart } from '../../src/model/link-key.js';
import { ensureEmbeddedServer, stopEmbeddedServer } from '../../src/ledger/embedded-server.js';
import { openPgClient } from '../../src/ledger/pg-client.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { startSandbox } from '../../src/sandbox/start-sandbox.js';
import { runCli } from '../helpers/run-cli.js';
import { stubCliEnv } from './cli-in-process.js';
import { jobYaml } from './sync-harness.js';
import { sentBesidesChecks } from '../helpers/sent-calls.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';

const EVENT = 'About,2026-06-01T09:00:00Z,2026-06-01T10:00:00Z';

// Client ids may hold any character (spec §1). A `/`, `#` or `:` inside one must not move a
// link to another event or user, nor make two links one: `evsync run` against the sandbox.
describe('links whose client ids hold / # and :', () => {
  let dir: string;
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evsync-link-keys-'));
    sandbox = await startSandbox();
    stubCliEnv(sandbox, join(dir, 'data'));
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await sandbox.close();
    // The ledgers' servers go first: one still writing into a folder being deleted makes
    // the deletion fail (ENOTEMPTY).
    for (const data of ['data', 'legacy-data']) await stopEmbeddedServer(join(dir, data));
    await removeWorkspace(dir);
  });

  it('sends each speaker and RSVP to its own event and user, and reports distinct keys', async () => {
    const files = {
      'users.csv': [
        'client_id,email,first_name,last_name',
        'z,z@example.org,Zed,Zet',
        'y/z,yz@example.org,Why,Zet',
        '#1,hash@example.org,Hash,One',
        'email:a@example.org,colon@example.org,Colon,Name',
        'a,a@example.org,Plain,A',
        '',
      ].join('\n'),
      'events.csv': ['client_id,name,description,start,finish', `x/y,XY,${EVENT}`, `x,X,${EVENT}`, ''].join(
        '\n',
      ),
      // (x/y, z) and (x, y/z) were one key, x/y/z, and both went to event x.
      'speakers.csv': 'event_client_id,user_client_id\nx/y,z\nx,y/z\nx,#1\n',
      // `email:a@example.org` is a client id here, not the user whose e-mail is a@example.org.
      'rsvps.csv': 'user_client_id,event_client_id\nz,x/y\ny/z,x\nemail:a@example.org,x\n',
      'job.yaml': jobYaml(
        'keys',
        [
          '  - { mapping: users, source: { csv: ./users.csv } }',
          '  - { mapping: events, source: { csv: ./events.csv } }',
          '  - { mapping: speakers, source: { csv: ./speakers.csv } }',
          '  - { mapping: rsvps, source: { csv: ./rsvps.csv } }',
          '',
        ].join('\n'),
        'mode: mirror\n',
      ),
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);

    const run = await runCli('run', join(dir, 'job.yaml'));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const runId = /^Run (\S+) \(keys, mirror\): completed/.exec(run.stdout)![1]!;

    const state = sandbox.state;
    const user = (clientId: string): number => state.userByClientId(clientId)!.id;
    const speakers = (event: string): number[] =>
      state
        .eventByClientId(event)!
        .speakers.map((s) => s.userId)
        .sort((a, b) => a - b);
    expect(speakers('x/y')).toEqual([user('z')]);
    expect(speakers('x')).toEqual([user('y/z'), user('#1')].sort((a, b) => a - b));
    const schedule = (clientId: string): number[] => [...state.scheduleOf(user(clientId))];
    expect(schedule('z')).toEqual([state.eventByClientId('x/y')!.id]);
    expect(schedule('y/z')).toEqual([state.eventByClientId('x')!.id]);
    expect(schedule('email:a@example.org')).toEqual([state.eventByClientId('x')!.id]);
    expect(schedule('a')).toEqual([]);

    const report = await runCli('report', runId, '--format', 'json');
    const rows = JSON.parse(report.stdout) as Array<{ kind: string; key: string; action: string }>;
    const links = rows.filter((r) => r.kind === 'speaker' || r.kind === 'rsvp');
    expect(links.every((r) => r.action === 'created')).toBe(true);
    expect(new Set(links.map((r) => `${r.kind} ${r.key}`)).size).toBe(6);

    // A second run finds every key again: nothing sent, nothing deleted.
    const again = await runCli('run', join(dir, 'job.yaml'));
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^speaker +0 +0 +0 +3 +0 +0 +0$/m);
    expect(again.stdout).toMatch(/^rsvp +0 +0 +0 +3 +0 +0 +0$/m);
  }, 120_000);

  it('understands the keys an earlier version stored: a rerun after the upgrade sends and deletes nothing', async () => {
    const data = join(dir, 'legacy-data');
    stubCliEnv(sandbox, data);
    const files = {
      'l-users.csv':
        'client_id,email,first_name,last_name\nu:1,u1@example.org,U,One\nu%2,u2@example.org,U,Two\n',
      'l-events.csv': `client_id,name,description,start,finish\ne#1,E1,${EVENT}\ne/2,E2,${EVENT}\n`,
      'l-speakers.csv': 'event_client_id,user_client_id\ne#1,u:1\n',
      'l-rsvps.csv': 'user_client_id,event_client_id\nu%2,e#1\n',
      'l-schedules.csv': 'user_client_id,event_client_id\nu:1,e#1\n',
      'legacy.yaml': jobYaml(
        'legacy',
        ['users', 'events', 'speakers', 'rsvps', 'schedules']
          .map((m) => `  - { mapping: ${m}, source: { csv: ./l-${m}.csv } }\n`)
          .join(''),
        'mode: mirror\n',
      ),
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    expect((await runCli('run', join(dir, 'legacy.yaml'))).code).toBe(0);

    // What evsync wrote before key parts: the client ids as they are, joined by "/".
    const client = await openPgClient({ databaseUrl: (await ensureEmbeddedServer(data)).url });
    for (const table of ['synced_hashes', 'run_intents', 'intent_results']) {
      const rows = await client.query<{ kind: string; key: string }>(
        `SELECT DISTINCT kind, key FROM ${table} WHERE kind IN ('speaker', 'rsvp', 'schedule')`,
      );
      for (const { kind, key } of rows) {
        const legacy = key.split('/').map(clientIdOfPart).join('/');
        await client.query(`UPDATE ${table} SET key = $1 WHERE kind = $2 AND key = $3`, [legacy, kind, key]);
      }
    }
    expect(
      (
        await client.query<{ key: string }>(
          "SELECT key FROM synced_hashes WHERE kind <> 'user' AND kind <> 'event' ORDER BY 1",
        )
      ).map((r) => r.key),
    ).toEqual(['e#1/u:1', 'u%2/e#1', 'u:1']);
    await client.query('DELETE FROM evsync_schema_version WHERE version >= 5');
    await client.close();

    const callsBefore = sentBesidesChecks(sandbox.counters.snapshot());
    const rerun = await runCli('run', join(dir, 'legacy.yaml'));
    expect(rerun.code).toBe(0);
    for (const kind of ['speaker', 'rsvp', 'schedule']) {
      expect(rerun.stdout).toMatch(new RegExp(`^${kind} +0 +0 +0 +1 +0 +0 +0$`, 'm'));
    }
    expect(sentBesidesChecks(sandbox.counters.snapshot())).toBe(callsBefore);
  }, 120_000);
});
