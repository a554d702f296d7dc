import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople } from './conference-fixture.js';

const csv = (...rows: string[]): string => ['client_id,email,first_name,last_name', ...rows, ''].join('\n');
const JOB =
  'name: night\nsteps:\n' +
  '  - { name: comp, mapping: users, source: { csv: ./comp.csv } }\n' +
  '  - { name: tickets, mapping: users, source: { csv: ./tickets.csv } }\n';

// A reviewing helper's faults: a merged person's other client_ids had nothing synced of their
// own (what was sent went under the first key), so the check that refuses a key now naming
// another person had nothing to compare them with. Ann's ticket, handed on to Zoe once Ann
// left the comp list, renamed Ann's account into Zoe's; a comp key reused for Bob sent
// Bob's speaker links to Ann's account. Both "updated", exit 0.
describe('a merged person’s other key handed on (built CLI)', () => {
  const ws = cliWorkspace('evsync-merged-key-handed-on-');
  afterAll(() => ws.close());

  it('refuses the ticket handed on once the first key left', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml': JOB,
      'comp.csv': csv('C-1,ann@merged.example,Ann,Lee'),
      'tickets.csv': csv('T-1,ann@merged.example,Ann,Lee'),
    });
    const first = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(conferencePeople(sandbox)).toEqual(['C-1 T-1 Ann Lee ann@merged.example']);

    ws.write({ 'comp.csv': csv(), 'tickets.csv': csv('T-1,zoe@merged.example,Zoe,Kim') });
    const plan = await ws.run(sandbox, ['plan', 'job.yaml']);
    expect(plan.stdout).toMatch(/user updates? a run refuses: the key now names another person/);
    const second = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(second.code, second.stdout + second.stderr).toBe(1);
    expect(conferencePeople(sandbox)).toEqual(['C-1 T-1 Ann Lee ann@merged.example']);
    const report = await ws.run(sandbox, ['report', 'latest', '--status', 'failed', '--format', 'json']);
    const rows = JSON.parse(report.stdout) as Array<{ key: string; error_code: string; message: string }>;
    expect(rows.map((row) => [row.key, row.error_code])).toEqual([['T-1', 'EVSYNC_KEY_NOW_ANOTHER_PERSON']]);
    expect(rows[0]?.message).toContain('"Ann Lee" <ann@merged.example>');
  }, 90_000);

  it('refuses a comp key reused for another attendee', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      // The tickets first: Ann's user is T-1's, and C-1 has nothing synced of its own.
      'job.yaml':
        'name: night\nsteps:\n' +
        '  - { name: tickets, mapping: users, source: { csv: ./tickets.csv } }\n' +
        '  - { name: comp, mapping: users, source: { csv: ./comp.csv } }\n',
      'comp.csv': csv('C-1,ann@merged.example,Ann,Lee'),
      'tickets.csv': csv('T-1,ann@merged.example,Ann,Lee', 'T-2,bob@merged.example,Bob,Baker'),
    });
    const first = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);

    ws.write({
      'comp.csv': csv('C-1,bob@merged.example,Bob,Baker'),
      'tickets.csv': csv('T-2,bob@merged.example,Bob,Baker'),
    });
    const second = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(second.code, second.stdout + second.stderr).toBe(1);
    expect(conferencePeople(sandbox)).toEqual([
      'T-1 C-1 Ann Lee ann@merged.example',
      'T-2 Bob Baker bob@merged.example',
    ]);
    const report = await ws.run(sandbox, ['report', 'latest', '--status', 'failed', '--format', 'json']);
    const rows = JSON.parse(report.stdout) as Array<{ key: string; error_code: string; message: string }>;
    expect(rows.map((row) => [row.key, row.error_code])).toEqual([['T-2', 'EVSYNC_KEY_NOW_ANOTHER_PERSON']]);
    expect(rows[0]?.message).toContain(
      'client_id "C-1" (merged into this row\'s person, client_id "T-2") was "Ann Lee"',
    );
  }, 90_000);

  it('lets a merged person’s new name, then new address, through when every source gives it', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml':
        'name: night\nsteps:\n' +
        '  - { name: tickets, mapping: users, source: { csv: ./tickets.csv } }\n' +
        '  - { name: comp, mapping: users, source: { csv: ./comp.csv } }\n',
      'comp.csv': csv('D-C1,ann@merged.example,Ann,Lee'),
      'tickets.csv': csv('D-T0,tom@merged.example,Tom,Tay'),
    });
    const nights: Array<[string, string]> = [
      // The ticket export gains Ann: merged, under the ticket's key; the comp key's own record
      // is of the night before.
      ['D-T1,ann@merged.example,Ann,Lee', 'D-C1,ann@merged.example,Ann,Lee'],
      ['D-T1,ann@merged.example,Ann,Kim', 'D-C1,ann@merged.example,Ann,Kim'],
      ['D-T1,ann.kim@merged.example,Ann,Kim', 'D-C1,ann.kim@merged.example,Ann,Kim'],
    ];
    const first = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    for (const [ticket, comp] of nights) {
      ws.write({ 'tickets.csv': csv('D-T0,tom@merged.example,Tom,Tay', ticket), 'comp.csv': csv(comp) });
      const night = await ws.run(sandbox, ['run', 'job.yaml']);
      expect(night.code, `${ticket}: ${night.stdout}${night.stderr}`).toBe(0);
    }
    expect(conferencePeople(sandbox)).toEqual([
      'D-C1 D-T1 Ann Kim ann.kim@merged.example',
      'D-T0 Tom Tay tom@merged.example',
    ]);
  }, 120_000);
});
