import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople } from './conference-fixture.js';

const csv = (...rows: string[]): string =>
  ['client_id,email,first_name,last_name,company', ...rows, ''].join('\n');

// A reviewing helper's fault: the ticket export and the comp list gave Ann one e-mail, and
// a run merged T-1 and C-1 into one platform user. The comp list then gave C-1 a new
// e-mail: the next run planned two updates of that one account, "updated 2", exit 0, and
// the account ended with whichever was sent last. Keys the id map gives one account, that
// the sources now give to two people, are refused, and the account stays as it was.
describe('a merged person the sources split again (built CLI)', () => {
  const ws = cliWorkspace('evsync-merged-split-');
  afterAll(() => ws.close());

  it('refuses both keys of the account until the sources agree, and sends a change both make', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml':
        'name: night\nsteps:\n' +
        '  - { name: tickets, mapping: users, source: { csv: ./tickets.csv } }\n' +
        '  - { name: comp, mapping: users, source: { csv: ./comp.csv } }\n',
      'tickets.csv': csv('T-1,ann@merge.example,Ann,Arbor,TicketCo', 'T-2,bob@merge.example,Bob,Baker,'),
      'comp.csv': csv('C-1,ANN@merge.example ,Ann,Arbor,Press AG', 'C-2,bob@merge.example,Bob,Baker,Bake AG'),
    });
    const first = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(conferencePeople(sandbox)).toEqual([
      'T-1 C-1 Ann Arbor ann@merge.example',
      'T-2 C-2 Bob Baker bob@merge.example',
    ]);

    // The comp list alone moves Ann to a new address; both sources move Bob to his.
    ws.write({
      'tickets.csv': csv('T-1,ann@merge.example,Ann,Arbor,TicketCo', 'T-2,bob.new@merge.example,Bob,Baker,'),
      'comp.csv': csv(
        'C-1,ann.work@merge.example,Ann,Arbor,Press AG',
        'C-2,bob.new@merge.example,Bob,Baker,Bake AG',
      ),
    });
    const plan = await ws.run(sandbox, ['plan', 'job.yaml']);
    expect(plan.stdout).toContain('EVSYNC_MERGED_PERSON_SPLIT');
    const second = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(second.code, second.stdout + second.stderr).toBe(1);
    expect(conferencePeople(sandbox)).toEqual([
      'T-1 C-1 Ann Arbor ann@merge.example',
      'T-2 C-2 Bob Baker bob.new@merge.example',
    ]);
    const report = await ws.run(sandbox, ['report', 'latest', '--status', 'failed', '--format', 'json']);
    const rows = JSON.parse(report.stdout) as Array<{ key: string; error_code: string; message: string }>;
    expect(rows.map((row) => [row.key, row.error_code]).sort()).toEqual([
      ['C-1', 'EVSYNC_MERGED_PERSON_SPLIT'],
      ['T-1', 'EVSYNC_MERGED_PERSON_SPLIT'],
    ]);
    expect(rows[0]?.message).toContain('client_ids "C-1" and "T-1" are one platform user');
    expect(rows[0]?.message).toContain('ann.work@merge.example');

    // The ticket export follows: one person again. A retry of the night sends the merged
    // user under its first key, and says the other key went with it.
    ws.write({
      'tickets.csv': csv(
        'T-1,ann.work@merge.example,Ann,Arbor,TicketCo',
        'T-2,bob.new@merge.example,Bob,Baker,',
      ),
    });
    // Only the comp key asked: the merged user carries the ticket's key, which is no longer left.
    const retry = await ws.run(sandbox, ['retry', 'latest', '--client-id', 'C-1']);
    expect(retry.code, retry.stdout + retry.stderr).toBe(0);
    expect(retry.stdout).not.toContain("outside this retry's filter");
    expect(retry.stdout).toMatch(/^user +0 +0 +1 +0 +0 +1 +0$/m);
    expect(conferencePeople(sandbox)).toEqual([
      'T-1 C-1 Ann Arbor ann.work@merge.example',
      'T-2 C-2 Bob Baker bob.new@merge.example',
    ]);
    const skipped = await ws.run(sandbox, ['report', 'latest', '--status', 'skipped', '--format', 'json']);
    const merged = JSON.parse(skipped.stdout) as Array<{ key: string; error_code: string; message: string }>;
    expect(merged.map((row) => [row.key, row.error_code])).toEqual([['C-1', 'EVSYNC_RETRY_ROW_MERGED']]);
    expect(merged[0]?.message).toContain('the retry sends T-1, with C-1 among its client_ids');
    const third = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(third.code, third.stdout + third.stderr).toBe(0);
    expect(third.stdout).toMatch(/^user +0 +0 +0 +2 +0 +0 +0$/m);
  }, 120_000);

  it('holds the key from another job’s speaker links while its person is in question', async () => {
    const sandbox = await ws.sandbox();
    const events = (...rows: string[]): string =>
      ['client_id,name,description,start,finish', ...rows, ''].join('\n');
    ws.write({
      'people.yaml':
        'name: people\nsteps:\n' +
        '  - { name: tickets, mapping: users, source: { csv: ./tickets.csv } }\n' +
        '  - { name: comp, mapping: users, source: { csv: ./comp.csv } }\n',
      'programme.yaml':
        'name: programme\nsteps:\n' +
        '  - { mapping: events, source: { csv: ./events.csv } }\n' +
        '  - { mapping: speakers, source: { csv: ./speakers.csv } }\n',
      'tickets.csv': csv('H-T1,ann@hold.example,Ann,Arbor,'),
      'comp.csv': csv('H-C1,ann@hold.example,Ann,Arbor,'),
      'events.csv': events('H-E1,Opening,Welcome,2026-05-01 09:00,2026-05-01 10:00'),
      'speakers.csv': 'event_client_id,user_client_id\n',
    });
    const first = await ws.run(sandbox, ['run', 'people.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    // The comp list reuses H-C1 for Zoe, and the programme gives Zoe's key a talk.
    ws.write({
      'comp.csv': csv('H-C1,zoe@hold.example,Zoe,Zed,'),
      'speakers.csv': 'event_client_id,user_client_id\nH-E1,H-C1\n',
    });
    const people = await ws.run(sandbox, ['run', 'people.yaml']);
    expect(people.code, people.stdout + people.stderr).toBe(1);
    const programme = await ws.run(sandbox, ['run', 'programme.yaml']);
    expect(programme.code, programme.stdout + programme.stderr).toBe(1);
    expect(sandbox.state.eventByClientId('H-E1')?.speakers ?? []).toEqual([]);
    const status = await ws.run(sandbox, ['status']);
    expect(status.stdout).toContain('H-C1');
  }, 120_000);
});
