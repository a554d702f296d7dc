import { afterAll, describe, expect, it } from 'vitest';
import { PlatformClient } from '../../src/platform/platform-client.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';
import { TWO_SESSIONS } from './conference-fixture.js';

const PEOPLE = 'client_id,email,first_name,last_name';

/** The user of a key and the sessions it speaks at, as the platform has them. */
function accountOf(sandbox: RunningSandbox, key: string): string {
  const user = sandbox.state.userByClientId(key);
  if (user === undefined) return `${key}: none`;
  const speaks = [...sandbox.state.events.values()]
    .filter((event) => event.speakers.some((speaker) => speaker.userId === user.id))
    .map((event) => event.clientIds.join('+'))
    .sort();
  return `${user.firstName} ${user.lastName} <${user.email}> speaks [${speaks.join(' ')}]`;
}

interface ResultRow {
  key: string;
  action: string;
  error_code: string | null;
  message: string | null;
}

// A ticket handed on: a run refuses `QWE-1` as now another person and holds the key. The
// build before let `audit --repair` (and the dashboard's Repair) update Amy's account to
// Zed Zimmer, "updated", exit 0, and let the key go: the repair removed the key's synced
// hash, which is what the identity check reads the last-synced person through.
describe('audit --repair of a key that now names another person', () => {
  const ws = cliWorkspace('evsync-audit-repair-person-');
  afterAll(() => ws.close());

  it('refuses it as a run does, keeps the hold, and still repairs a hand edit', async () => {
    const sandbox = await ws.sandbox();
    const admin = new PlatformClient({
      baseUrl: sandbox.url,
      keyId: sandbox.keyId,
      signingKey: sandbox.signingKey,
    });
    try {
      ws.write({
        'attendees.yaml':
          'name: attendees\nmode: upsert\nsteps:\n  - { mapping: users, source: { csv: ./people.csv } }\n',
        'program.yaml': [
          'name: program',
          'mode: upsert',
          'steps:',
          '  - { mapping: events, source: { csv: ./events.csv } }',
          '  - { mapping: speakers, source: { csv: ./speakers.csv } }',
          '',
        ].join('\n'),
        'people.csv': [PEOPLE, 'QWE-1,amy@example.org,Amy,Able', 'BOB-1,bob@example.org,Bob,Baker', ''].join(
          '\n',
        ),
        'events.csv': TWO_SESSIONS,
        'speakers.csv': 'event_client_id,user_client_id\ns1,QWE-1\n',
      });
      for (const job of ['attendees.yaml', 'program.yaml']) {
        const run = await ws.run(sandbox, ['run', job]);
        expect(run.code, run.stdout + run.stderr).toBe(0);
      }

      // The ticket is handed on to Zed: refused, the key held.
      ws.write({
        'people.csv': [
          PEOPLE,
          'QWE-1,zed@example.org,Zed,Zimmer',
          'BOB-1,bob@example.org,Bob,Baker',
          '',
        ].join('\n'),
        'speakers.csv': 'event_client_id,user_client_id\ns1,QWE-1\ns2,QWE-1\n',
      });
      const refused = await ws.run(sandbox, ['run', 'attendees.yaml']);
      expect(refused.code, refused.stdout + refused.stderr).toBe(1);
      const refusedRows = await failedRows(ws, sandbox);
      // A genuine hand edit beside it: Bob's name mistyped on the platform.
      await admin.users.update({ clientId: 'BOB-1' }, { 'user[last_name]': 'Bakker' });

      const repair = await ws.run(sandbox, ['audit', 'attendees.yaml', '--repair']);
      expect(repair.code, repair.stdout + repair.stderr).toBe(1);
      expect(accountOf(sandbox, 'QWE-1')).toBe('Amy Able <amy@example.org> speaks [s1]');
      expect(accountOf(sandbox, 'BOB-1')).toBe('Bob Baker <bob@example.org> speaks []');
      expect(sandbox.state.userByClientId('BOB-1')?.id).not.toBe(sandbox.state.userByClientId('QWE-1')?.id);
      // Refused as the run refused it: the same code, the same message.
      expect(await failedRows(ws, sandbox)).toEqual(refusedRows);
      expect(refusedRows).toEqual([
        {
          key: 'QWE-1',
          action: 'failed',
          error_code: 'EVSYNC_KEY_NOW_ANOTHER_PERSON',
          message: expect.stringContaining(
            'client_id "QWE-1" was "Amy Able" <amy@example.org> when last synced, and this row makes it "Zed Zimmer" <zed@example.org>',
          ),
        },
      ]);

      // The hold stays: the programme does not put Zed's talk on Amy's account.
      const status = await ws.run(sandbox, ['status']);
      expect(status.stdout).toMatch(/^ {2}user "QWE-1" on \S+: refused by run \S+ of job "attendees"/m);
      const program = await ws.run(sandbox, ['run', 'program.yaml']);
      expect(program.code, program.stdout + program.stderr).toBe(1);
      expect(accountOf(sandbox, 'QWE-1')).toBe('Amy Able <amy@example.org> speaks [s1]');

      // A repair again refuses again: the key's last-synced person is still Amy.
      const again = await ws.run(sandbox, ['audit', 'attendees.yaml', '--repair']);
      expect(again.code, again.stdout + again.stderr).toBe(1);
      expect(accountOf(sandbox, 'QWE-1')).toBe('Amy Able <amy@example.org> speaks [s1]');
    } finally {
      await admin.close();
    }
  }, 150_000);
});

async function failedRows(ws: CliWorkspace, sandbox: RunningSandbox): Promise<ResultRow[]> {
  const report = await ws.run(sandbox, ['report', 'latest', '--status', 'failed', '--format', 'json']);
  const rows = JSON.parse(report.stdout) as ResultRow[];
  return rows.map(({ key, action, error_code, message }) => ({ key, action, error_code, message }));
}

interface AuditJson {
  summary: Record<string, Record<string, number>>;
  drift: Array<{ kind: string; key: string; type: string; fields: string[]; detail: string }>;
}

// The audit itself listed the handed-on ticket as `changed` (Amy on the platform, Zed in the
// source), the drift a repair puts right, beside a genuine hand edit.
describe('audit of a key that now names another person', () => {
  const ws = cliWorkspace('evsync-audit-another-person-');
  afterAll(() => ws.close());

  it('says so, apart from drift, and leaves it out of the repair, saying why', async () => {
    const sandbox = await ws.sandbox();
    const admin = new PlatformClient({
      baseUrl: sandbox.url,
      keyId: sandbox.keyId,
      signingKey: sandbox.signingKey,
    });
    try {
      ws.write({
        'attendees.yaml':
          'name: attendees\nmode: upsert\nsteps:\n  - { mapping: users, source: { csv: ./people.csv } }\n',
        'people.csv': [PEOPLE, 'QWE-1,amy@example.org,Amy,Able', 'BOB-1,bob@example.org,Bob,Baker', ''].join(
          '\n',
        ),
      });
      const first = await ws.run(sandbox, ['run', 'attendees.yaml']);
      expect(first.code, first.stdout + first.stderr).toBe(0);
      ws.write({
        'people.csv': [
          PEOPLE,
          'QWE-1,zed@example.org,Zed,Zimmer',
          'BOB-1,bob@example.org,Bob,Baker',
          '',
        ].join('\n'),
      });
      const refused = await ws.run(sandbox, ['run', 'attendees.yaml']);
      expect(refused.code, refused.stdout + refused.stderr).toBe(1);
      await admin.users.update({ clientId: 'BOB-1' }, { 'user[last_name]': 'Bakker' });

      const audit = await ws.run(sandbox, ['audit', 'attendees.yaml', '--json']);
      expect(audit.code, audit.stderr).toBe(1);
      const found = JSON.parse(audit.stdout) as AuditJson;
      expect(found.drift.map(({ key, type, fields }) => ({ key, type, fields }))).toEqual([
        { key: 'QWE-1', type: 'another_person', fields: [] },
        { key: 'BOB-1', type: 'changed', fields: ['user[last_name]'] },
      ]);
      expect(found.summary.user).toMatchObject({ in_sync: 0, changed: 1, another_person: 1 });
      expect(found.drift[0]!.detail).toContain(
        '"Amy Able" <amy@example.org> (the e-mail last synced), and the source now makes it "Zed Zimmer" <zed@example.org>',
      );

      const repair = await ws.run(sandbox, ['audit', 'attendees.yaml', '--repair']);
      expect(repair.code, repair.stdout + repair.stderr).toBe(1);
      expect(repair.stdout).toMatch(/^kind +in sync +missing +changed +another person +extra/m);
      expect(repair.stdout).toMatch(/^ {2}user QWE-1 another_person: .*Not repaired/m);
      expect(repair.stdout).toMatch(
        /^Not repaired: 1 user whose row now names another person than the account under its key/m,
      );
      expect(accountOf(sandbox, 'QWE-1')).toBe('Amy Able <amy@example.org> speaks []');
      expect(accountOf(sandbox, 'BOB-1')).toBe('Bob Baker <bob@example.org> speaks []');
      const rows = await failedRows(ws, sandbox);
      expect(rows.map((row) => [row.key, row.error_code])).toEqual([
        ['QWE-1', 'EVSYNC_KEY_NOW_ANOTHER_PERSON'],
      ]);

      // Bob is in sync again; QWE-1 is still another person, and still said so.
      const again = await ws.run(sandbox, ['audit', 'attendees.yaml', '--json']);
      expect(again.code, again.stderr).toBe(1);
      const still = JSON.parse(again.stdout) as AuditJson;
      expect(still.drift.map(({ key, type }) => `${key} ${type}`)).toEqual(['QWE-1 another_person']);
      expect(still.summary.user).toMatchObject({ in_sync: 1, changed: 0, another_person: 1 });
    } finally {
      await admin.close();
    }
  }, 150_000);
});
