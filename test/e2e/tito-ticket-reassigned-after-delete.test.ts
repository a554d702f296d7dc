import { afterAll, describe, expect, it } from 'vitest';
import { PlatformClient } from '../../src/platform/platform-client.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople, TITO_HEADER, titoTicket } from './conference-fixture.js';

const ALICE = { first: 'Alice', last: 'Ames', email: 'alice@example.org' };
const BOB = { first: 'Bob', last: 'Byrne', email: 'bob@example.org' };
const CY = { first: 'Cy', last: 'Clark', email: 'cy@example.org' };

/** Every account the platform has, in the conference or not: `client_ids name e-mail (in|out)`. */
function platformPeople(sandbox: RunningSandbox): string[] {
  return [...sandbox.state.users.values()]
    .filter((user) => user.clientIds.length > 0)
    .map(
      (user) =>
        `${user.clientIds.join(' ')} ${user.firstName} ${user.lastName} ${user.email} ${user.inConference ? 'in' : 'out'}`,
    )
    .sort();
}

/** User updates the sandbox answered, by platform id or by client_id. */
function userPuts(sandbox: RunningSandbox): number {
  return (
    sandbox.counters.callsTo('PUT', '/user/member/{id}') + sandbox.counters.callsTo('PUT', '/user/member')
  );
}

interface ResultRow {
  key: string;
  action: string;
  error_code: string | null;
  message: string | null;
}

// Alice's Tito ticket leaves the export (unassigned), and the mirror job removes her from the
// conference; her platform account keeps the client_id `tito-XQ7A-1` (the platform keeps a
// client_id on its first account). Tito then assigns the ticket to Bob under the same
// reference. The build before POSTed Bob's create: the platform answered 203 with Alice's
// account and put her back in the conference; the row was refused only then, as "another
// conference's person", and `audit` called her "changed" and offered a repair its run refused.
describe('a Tito ticket assigned to another person after a mirror delete', () => {
  const ws = cliWorkspace('evsync-tito-reassigned-');
  afterAll(() => ws.close());

  it('is refused before any call, leaves Alice out, and audit names another person', async () => {
    const sandbox = await ws.sandbox();
    const write = (...rows: string[]): void =>
      ws.write({
        'job.yaml':
          'name: tickets\nmode: mirror\ndelete_threshold: 100%\nsteps:\n  - { mapping: tito, source: { csv: ./tito.csv } }\n',
        'tito.csv': [TITO_HEADER, ...rows, ''].join('\n'),
      });
    const run = async (...args: string[]) => {
      const result = await ws.run(sandbox, args);
      return { ...result, all: result.stdout + result.stderr };
    };

    write(titoTicket('XQ7A-1', ALICE), titoTicket('XQ7A-2', CY));
    const first = await run('run', 'job.yaml');
    expect(first.code, first.all).toBe(0);
    write(titoTicket('XQ7A-1', undefined, ALICE), titoTicket('XQ7A-2', CY));
    const unassigned = await run('run', 'job.yaml');
    expect(unassigned.code, unassigned.all).toBe(0);
    expect(conferencePeople(sandbox)).toEqual(['tito-XQ7A-2 Cy Clark cy@example.org']);

    write(titoTicket('XQ7A-1', BOB, ALICE), titoTicket('XQ7A-2', CY));
    // A dry run says it ahead, and exits as the run will.
    const plan = await run('run', 'job.yaml', '--dry-run');
    expect(plan.code, plan.all).toBe(1);
    expect(plan.stdout).toContain(
      "1 user row a run refuses: the key's earlier person, removed from this conference, keeps it on the platform (EVSYNC_KEY_OF_REMOVED_PERSON)",
    );
    expect(plan.stdout).toContain(
      'user "tito-XQ7A-1": "Alice Ames" <alice@example.org> when last synced, removed from this conference since, "Bob Byrne" <bob@example.org> in the source',
    );
    const posts = sandbox.counters.callsTo('POST', '/user');
    const bob = await run('run', 'job.yaml');
    expect(bob.code, bob.all).toBe(1);
    expect(sandbox.counters.callsTo('POST', '/user')).toBe(posts);
    expect(conferencePeople(sandbox)).toEqual(['tito-XQ7A-2 Cy Clark cy@example.org']);
    expect(platformPeople(sandbox)).toEqual([
      'tito-XQ7A-1 Alice Ames alice@example.org out',
      'tito-XQ7A-2 Cy Clark cy@example.org in',
    ]);
    const report = await run('report', 'latest', '--status', 'failed', '--format', 'json');
    const [refused, ...more] = JSON.parse(report.stdout) as ResultRow[];
    expect(more).toEqual([]);
    expect(refused).toMatchObject({ key: 'tito-XQ7A-1', error_code: 'EVSYNC_KEY_OF_REMOVED_PERSON' });
    expect(refused?.message).toContain(
      'row 1 (line 2) of ./tito.csv: client_id "tito-XQ7A-1" was "Alice Ames" <alice@example.org> when last synced, ' +
        'and a run has removed that person from this conference since; this row makes it "Bob Byrne" <bob@example.org>',
    );
    expect(refused?.message).toContain('Give this person a client_id of their own');

    // Alice back in the conference under the key (as the build before left her, or by hand):
    // the audit names another person under the key, and a repair sends nothing for it.
    const admin = new PlatformClient({
      baseUrl: sandbox.url,
      keyId: sandbox.keyId,
      signingKey: sandbox.signingKey,
    });
    try {
      await admin.users.create({
        client_id: 'tito-XQ7A-1',
        'user[first_name]': 'Alice',
        'user[last_name]': 'Ames',
        'user[svc_auth_attributes][email]': 'alice@example.org',
      });
    } finally {
      await admin.close();
    }
    const audit = await run('audit', 'job.yaml', '--json');
    expect(audit.code, audit.all).toBe(1);
    const { summary, drift } = JSON.parse(audit.stdout) as {
      summary: { user: Record<string, number> };
      drift: Array<{ key: string; type: string; detail: string }>;
    };
    expect(summary.user).toMatchObject({ in_sync: 1, changed: 0, another_person: 1 });
    expect(drift.map((entry) => [entry.key, entry.type])).toEqual([['tito-XQ7A-1', 'another_person']]);
    expect(drift[0]?.detail).toContain(
      'the platform\'s account is "Alice Ames" <alice@example.org> (the e-mail last synced), and the source now makes it "Bob Byrne" <bob@example.org>',
    );
    expect(drift[0]?.detail).toContain('EVSYNC_KEY_OF_REMOVED_PERSON');
    const puts = userPuts(sandbox);
    const repair = await run('audit', 'job.yaml', '--repair');
    expect(repair.all).not.toMatch(/changed: user\[first_name\]/);
    expect(userPuts(sandbox)).toBe(puts);
    expect(platformPeople(sandbox)).toEqual([
      'tito-XQ7A-1 Alice Ames alice@example.org in',
      'tito-XQ7A-2 Cy Clark cy@example.org in',
    ]);
    expect(JSON.stringify([...sandbox.state.users.values()])).not.toMatch(/Bob|bob@/);
  }, 120_000);
});

// The same after `evsync prune` removed the runs that sent Alice and removed her: retention
// keeps what names her (docs/ledger.md, "Removed keys"). The build before forgot her with
// those runs: Bob's create was POSTed, and the 203 put Alice back in the conference.
describe('the same ticket after a prune of the runs that sent and removed its holder', () => {
  const ws = cliWorkspace('evsync-tito-reassigned-pruned-');
  afterAll(() => ws.close());

  it('is still refused before any call, and Alice stays out', async () => {
    const sandbox = await ws.sandbox();
    const run = async (...rows: string[]) => {
      ws.write({
        'job.yaml':
          'name: tickets\nmode: mirror\ndelete_threshold: 100%\nsteps:\n  - { mapping: tito, source: { csv: ./tito.csv } }\n',
        'tito.csv': [TITO_HEADER, ...rows, ''].join('\n'),
      });
      const result = await ws.run(sandbox, ['run', 'job.yaml']);
      return { ...result, all: result.stdout + result.stderr };
    };
    expect((await run(titoTicket('XQ7A-1', ALICE), titoTicket('XQ7A-2', CY))).code).toBe(0);
    expect((await run(titoTicket('XQ7A-1', undefined, ALICE), titoTicket('XQ7A-2', CY))).code).toBe(0);
    // A quiet night, then the retention that keeps only the newest run.
    expect((await run(titoTicket('XQ7A-1', undefined, ALICE), titoTicket('XQ7A-2', CY))).code).toBe(0);
    const prune = await ws.run(sandbox, ['prune', '--keep-runs', '1']);
    expect(prune.code, prune.stdout + prune.stderr).toBe(0);
    expect(prune.stdout).toMatch(/Removed [1-9]/);

    const posts = sandbox.counters.callsTo('POST', '/user');
    const bob = await run(titoTicket('XQ7A-1', BOB, ALICE), titoTicket('XQ7A-2', CY));
    expect(bob.code, bob.all).toBe(1);
    expect(sandbox.counters.callsTo('POST', '/user')).toBe(posts);
    expect(platformPeople(sandbox)).toEqual([
      'tito-XQ7A-1 Alice Ames alice@example.org out',
      'tito-XQ7A-2 Cy Clark cy@example.org in',
    ]);
    const report = await ws.run(sandbox, ['report', 'latest', '--status', 'failed', '--format', 'json']);
    const [refused] = JSON.parse(report.stdout) as ResultRow[];
    expect(refused).toMatchObject({ key: 'tito-XQ7A-1', error_code: 'EVSYNC_KEY_OF_REMOVED_PERSON' });
    expect(JSON.stringify([...sandbox.state.users.values()])).not.toMatch(/Bob|bob@/);
  }, 120_000);
});
