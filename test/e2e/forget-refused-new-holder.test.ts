import { afterAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, startBuiltDashboard } from '../helpers/built-cli.js';

const csv = (...rows: string[]): string => ['client_id,email,first_name,last_name', ...rows, ''].join('\n');
const TOKEN = 'forget-refused-token-0123456789abcdef';

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

// Ticket QWE-1 was Amy's (synced: account, talk, schedule), then the source handed it on to
// Zed, and the run refused his row (EVSYNC_KEY_NOW_ANOTHER_PERSON): the account under QWE-1
// is Amy's. The build before took every row under QWE-1 as the person's: forgetting Zed
// found "1 client_id(s), 2 e-mail(s)", removed Amy's account with her talk and schedule,
// and tombstoned her e-mail, so that Amy coming back under a ticket of her own was
// suppressed for good, exit 0. The dashboard's Forget on Zed's refused row did the same.
describe('forgetting the new holder of a handed-on ticket, whose row was refused', () => {
  const ws = cliWorkspace('evsync-forget-refused-holder-');
  afterAll(() => ws.close());

  it('forgets Zed only: Amy keeps her account, and comes back under her own ticket', async () => {
    const sandbox = await ws.sandbox();
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
    const synced = await ws.run(sandbox, ['run', 'attendees.yaml']);
    expect(synced.code).toBe(0);
    const syncingRun = /Run (\S+) \(attendees/.exec(synced.stdout)![1]!;
    expect((await ws.run(sandbox, ['run', 'program.yaml'])).code).toBe(0);
    const amy = accountOf(sandbox, 'amy@example.org');
    expect(amy).toBe('QWE-1 Amy Able speaks=s1 schedule=s1');

    ws.write({ 'people.csv': csv('QWE-1,zed@example.org,Zed,Zimmer', 'BOB-1,bob@example.org,Bob,Baker') });
    const refused = await ws.run(sandbox, ['run', 'attendees.yaml']);
    expect(refused.code, refused.stdout + refused.stderr).toBe(1);
    const refusingRun = /Run (\S+) \(attendees/.exec(refused.stdout)?.[1];
    expect(refusingRun, refused.stdout).toBeDefined();

    // The dashboard's Forget on Zed's refused row: its dry run removes nobody on the platform.
    const dashboard = await startBuiltDashboard({
      cwd: ws.dir,
      env: { ...ws.envFor(sandbox), EVSYNC_DASHBOARD_TOKEN: TOKEN },
    });
    try {
      const preview = await fetch(`${dashboard.base}/runs/${refusingRun}/forget?client_id=QWE-1`, {
        headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
      });
      expect(preview.status, dashboard.stderr()).toBe(200);
      const body = (await preview.json()) as {
        found: { clientIds: number; emails: number; otherPeople: number };
        platformRemoved: number[];
      };
      expect(body.found).toEqual({ clientIds: 1, emails: 1, otherPeople: 1 });
      expect(body.platformRemoved).toEqual([]);
    } finally {
      await dashboard.stop();
    }

    // By the shared key alone, which of the two is meant is not clear: refused, nothing removed.
    const byKey = await ws.run(sandbox, ['forget', '--client-id', 'QWE-1']);
    expect(byKey.code).not.toBe(0);
    expect(byKey.stderr).toContain('has named more than one person');

    const forget = await ws.run(sandbox, ['forget', '--email', 'zed@example.org', '--reason', 'r-1']);
    expect(forget.code, forget.stdout + forget.stderr).toBe(0);
    expect(forget.stdout).toContain('Found in the ledger: 1 client_id(s), 1 e-mail(s).');
    expect(forget.stdout).toContain('Another person: rows of 1 other person(s) use a client_id');
    expect(forget.stdout).toContain('Platform: no user of that e-mail or id in this conference.');
    // Zed's e-mail only: QWE-1 is Amy's key too.
    expect(forget.stdout).toMatch(/Tombstone #\d+: 1 identifier\(s\)/);
    // Amy's account, talk and schedule are untouched; her history in the ledger too.
    expect(accountOf(sandbox, 'amy@example.org')).toBe(amy);
    const amysRun = await ws.run(sandbox, ['report', syncingRun, '--format', 'json']);
    expect(amysRun.stdout).toMatch(/"key":"QWE-1","action":"created"/);
    const zedsRun = await ws.run(sandbox, ['report', refusingRun!, '--format', 'json']);
    expect(zedsRun.stdout).not.toMatch(/zed|zimmer|QWE-1/i);

    // The tombstone keeps Zed out; Amy, back with a ticket of her own, is sent.
    ws.write({ 'people.csv': csv('AMY-2,amy@example.org,Amy,Able', 'BOB-1,bob@example.org,Bob,Baker') });
    const back = await ws.run(sandbox, ['run', 'attendees.yaml']);
    expect(back.code, back.stdout + back.stderr).toBe(0);
    expect(back.stdout).not.toContain('Suppressed');
    expect(accountOf(sandbox, 'amy@example.org')).toBe('QWE-1,AMY-2 Amy Able speaks=s1 schedule=s1');

    ws.write({ 'people.csv': csv('ZED-1,zed@example.org,Zed,Zimmer', 'BOB-1,bob@example.org,Bob,Baker') });
    const zed = await ws.run(sandbox, ['run', 'attendees.yaml']);
    expect(zed.stdout).toContain('Suppressed: 1 row');
    expect(accountOf(sandbox, 'zed@example.org')).toBeUndefined();
  }, 180_000);
});
