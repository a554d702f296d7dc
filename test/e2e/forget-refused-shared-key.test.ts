import { describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';

const csv = (...rows: string[]): string => ['client_id,email,first_name,last_name', ...rows, ''].join('\n');

/** Amy's account as the sandbox holds it: client_ids, the talks she speaks at, her schedule. */
function accountOf(sandbox: RunningSandbox, email: string): string | undefined {
  const user = sandbox.state.conferenceUsers().find((u) => u.email === email);
  if (user === undefined) return undefined;
  const eventsOf = (ids: readonly number[]): string[] =>
    ids.map((id) => sandbox.state.events.get(id)?.clientIds.join('+') ?? `#${id}`).sort();
  const speaks = [...sandbox.state.events.values()]
    .filter((event) => event.speakers.some((speaker) => speaker.userId === user.id))
    .map((event) => event.id);
  return `${user.clientIds.join(',')} ${user.firstName} ${user.lastName} speaks=${eventsOf(speaks).join(',')} schedule=${eventsOf(sandbox.state.scheduleOf(user.id)).join(',')}`;
}

/**
 * Ticket QWE-1 is Amy's (synced: account, talk s1, schedule), then the source hands it on to
 * Zed and the run refuses his row (EVSYNC_KEY_NOW_ANOTHER_PERSON): the account under QWE-1 is
 * Amy's. The programme now gives QWE-1 the talks s1 and s2. Returns the refusing run's id.
 */
async function handedOn(ws: CliWorkspace, sandbox: RunningSandbox): Promise<string> {
  ws.write({
    'attendees.yaml':
      'name: attendees\nmode: upsert\nsteps:\n  - { mapping: users, source: { csv: ./people.csv } }\n',
    'program.yaml':
      'name: program\nmode: upsert\nsteps:\n' +
      '  - { mapping: events, source: { csv: ./events.csv } }\n' +
      '  - { mapping: speakers, source: { csv: ./speakers.csv } }\n' +
      '  - { mapping: schedules, source: { csv: ./schedules.csv } }\n',
    'people.csv': csv('QWE-1,amy@example.org,Amy,Able', 'BOB-1,bob@example.org,Bob,Baker'),
    'events.csv':
      'client_id,name,description,start,finish\n' +
      's1,Opening,Welcome,2026-06-01T09:00:00Z,2026-06-01T10:00:00Z\n' +
      's2,Closing,Goodbye,2026-06-01T17:00:00Z,2026-06-01T18:00:00Z\n',
    'speakers.csv': 'event_client_id,user_client_id\ns1,QWE-1\n',
    'schedules.csv': 'user_client_id,event_client_id\nQWE-1,s1\nBOB-1,s1\n',
  });
  expect((await ws.run(sandbox, ['run', 'attendees.yaml'])).code).toBe(0);
  expect((await ws.run(sandbox, ['run', 'program.yaml'])).code).toBe(0);
  expect(accountOf(sandbox, 'amy@example.org')).toBe('QWE-1 Amy Able speaks=s1 schedule=s1');
  ws.write({ 'people.csv': csv('QWE-1,zed@example.org,Zed,Zimmer', 'BOB-1,bob@example.org,Bob,Baker') });
  const refused = await ws.run(sandbox, ['run', 'attendees.yaml']);
  expect(refused.code, refused.stdout + refused.stderr).toBe(1);
  ws.write({
    'speakers.csv': 'event_client_id,user_client_id\ns1,QWE-1\ns2,QWE-1\n',
    'schedules.csv': 'user_client_id,event_client_id\nQWE-1,s1\nQWE-1,s2\nBOB-1,s1\nBOB-1,s2\n',
  });
  return /Run (\S+) \(attendees/.exec(refused.stdout)![1]!;
}

// The key shared by two people's rows (QWE-1) is the platform key of one of them: the
// tombstone keeps it only for that one. The build before kept it in Zed's tombstone too, so
// that Amy, given her ticket back, failed as "another person under a reused key" every night
// and her talks were suppressed as an erased person's, exit 0.
describe('forgetting one of two people whose rows share a key', () => {
  it('forgetting the new holder (refused) leaves the key to Amy, whose talks go on', async () => {
    const ws = cliWorkspace('evsync-forget-shared-key-new-');
    try {
      const sandbox = await ws.sandbox();
      await handedOn(ws, sandbox);
      const forget = await ws.run(sandbox, ['forget', '--email', 'zed@example.org']);
      expect(forget.code, forget.stdout + forget.stderr).toBe(0);
      expect(forget.stdout).toMatch(/Tombstone #\d+: 1 identifier\(s\)/);

      // The organiser gives the ticket back to Amy: her row and her talks are sent.
      ws.write({ 'people.csv': csv('QWE-1,amy@example.org,Amy,Able', 'BOB-1,bob@example.org,Bob,Baker') });
      const attendees = await ws.run(sandbox, ['run', 'attendees.yaml']);
      expect(attendees.code, attendees.stdout + attendees.stderr).toBe(0);
      const program = await ws.run(sandbox, ['run', 'program.yaml']);
      expect(program.code, program.stdout + program.stderr).toBe(0);
      expect(program.stdout).not.toContain('Suppressed');
      expect(accountOf(sandbox, 'amy@example.org')).toBe('QWE-1 Amy Able speaks=s1,s2 schedule=s1,s2');
    } finally {
      await ws.close();
    }
  }, 180_000);

  it('forgetting the old holder keeps Zed: his row stays, his own key is sent', async () => {
    const ws = cliWorkspace('evsync-forget-shared-key-old-');
    try {
      const sandbox = await ws.sandbox();
      const refusingRun = await handedOn(ws, sandbox);
      const forget = await ws.run(sandbox, ['forget', '--email', 'amy@example.org']);
      expect(forget.code, forget.stdout + forget.stderr).toBe(0);
      expect(forget.stdout).toContain('Found in the ledger: 1 client_id(s), 1 e-mail(s).');
      expect(forget.stdout).toContain('Another person: rows of 1 other person(s) use a client_id');
      expect(forget.stdout).toMatch(/Platform: removed user \d+ from the conference/);
      // Amy's e-mail and her platform key QWE-1: never Zed's e-mail.
      expect(forget.stdout).toMatch(/Tombstone #\d+: 2 identifier\(s\)/);
      expect(accountOf(sandbox, 'amy@example.org')).toBeUndefined();
      // Zed's refused row is his: kept, without a quote of Amy.
      const zedsRun = await ws.run(sandbox, ['report', refusingRun, '--format', 'json']);
      expect(zedsRun.stdout).toMatch(/"key":"QWE-1"/);
      expect(zedsRun.stdout).toMatch(/zed@example\.org/);
      expect(zedsRun.stdout).not.toMatch(/amy@example\.org|Amy Able/);

      // QWE-1 stays Amy's (the platform keeps the client_id on her user): Zed's row under it
      // fails loudly, quoting nobody, instead of being suppressed.
      const next = await ws.run(sandbox, ['run', 'attendees.yaml']);
      expect(next.code, next.stdout + next.stderr).toBe(1);
      const failed = await ws.run(sandbox, ['report', 'latest', '--status', 'failed', '--format', 'json']);
      expect(failed.stdout).toContain('EVSYNC_ERASED_KEY_REUSED');
      expect(failed.stdout).not.toMatch(/amy|able/i);

      // Zed under a key of his own is sent; Amy stays out under any key.
      ws.write({
        'people.csv': csv(
          'AMY-2,amy@example.org,Amy,Able',
          'ZED-1,zed@example.org,Zed,Zimmer',
          'BOB-1,bob@example.org,Bob,Baker',
        ),
        'speakers.csv': 'event_client_id,user_client_id\ns1,ZED-1\ns2,ZED-1\n',
        'schedules.csv': 'user_client_id,event_client_id\nZED-1,s1\nBOB-1,s1\n',
      });
      const later = await ws.run(sandbox, ['run', 'attendees.yaml']);
      expect(later.code, later.stdout + later.stderr).toBe(0);
      expect(later.stdout).toContain('Suppressed: 1 row');
      const program = await ws.run(sandbox, ['run', 'program.yaml']);
      expect(program.code, program.stdout + program.stderr).toBe(0);
      expect(accountOf(sandbox, 'amy@example.org')).toBeUndefined();
      expect(accountOf(sandbox, 'zed@example.org')).toBe('ZED-1 Zed Zimmer speaks=s1,s2 schedule=s1');
    } finally {
      await ws.close();
    }
  }, 180_000);
});
