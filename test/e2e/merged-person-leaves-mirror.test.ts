import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople } from './conference-fixture.js';

const csv = (...rows: string[]): string => ['client_id,email,first_name,last_name', ...rows, ''].join('\n');
/** The ticket export and the comp list, one person each, in mirror mode. */
const MIRROR_JOB =
  'name: night\nmode: mirror\nsteps:\n' +
  '  - { name: tickets, mapping: users, source: { csv: ./tickets.csv } }\n' +
  '  - { name: comp, mapping: users, source: { csv: ./comp.csv } }\n';
const OTHERS = [
  'T-2,bo@leave.example,Bo,Berg',
  'T-3,cy@leave.example,Cy,Cole',
  'T-4,di@leave.example,Di,Dahl',
];

// A reviewing helper's find: in mirror mode, Ann was merged from the ticket export and the
// comp list into one user. Once she left both, the plan said "retire user T-1 … its platform
// record is another key of the source, so it stays": her comp key, synced under T-1 only,
// looked like another job's key. Every night kept her in the conference, exit 0.
describe('a merged person who leaves every source, in mirror mode (built CLI)', () => {
  const ws = cliWorkspace('evsync-merged-leaves-');
  afterAll(() => ws.close());

  it('is deleted, and stays deleted', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml': MIRROR_JOB,
      'tickets.csv': csv('T-1,ann@leave.example,Ann,Lee', ...OTHERS),
      'comp.csv': csv('C-1,ann@leave.example,Ann,Lee'),
    });
    const first = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(conferencePeople(sandbox)).toContain('T-1 C-1 Ann Lee ann@leave.example');

    ws.write({ 'tickets.csv': csv(...OTHERS), 'comp.csv': csv() });
    const plan = await ws.run(sandbox, ['plan', 'job.yaml']);
    expect(plan.stdout).not.toContain('another key of the source');
    const second = await ws.run(sandbox, ['run', 'job.yaml', '--force']);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^user +0 +0 +0 +3 +1 +0 +0$/m);
    expect(conferencePeople(sandbox).join('\n')).not.toContain('Ann');
    const third = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(third.code, third.stdout + third.stderr).toBe(0);
    expect(third.stdout).toMatch(/^user +0 +0 +0 +3 +0 +0 +0$/m);

    // The comp list hands Ann's comp key to Zoe. The platform keeps C-1 on Ann's account,
    // so a create would answer 203 with it and put Ann back in the conference.
    ws.write({ 'comp.csv': csv('C-1,zoe@leave.example,Zoe,Park') });
    const reused = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(reused.code, reused.stdout + reused.stderr).toBe(1);
    const report = await ws.run(sandbox, ['report', 'latest', '--status', 'failed', '--format', 'json']);
    expect(report.stdout).toContain('EVSYNC_KEY_OF_REMOVED_PERSON');
    expect(report.stdout).toContain('Ann Lee');
    expect(conferencePeople(sandbox).join('\n')).not.toContain('Ann');
    expect(conferencePeople(sandbox).join('\n')).not.toContain('Zoe');
  }, 120_000);

  // A reviewing helper's find: Zoe with a ticket of her own (T-9) and Ann's old comp key
  // merged into one person. T-9 was created, the PUT adding C-1 was refused (Ann's account
  // keeps it), yet the ledger gave C-1 to Zoe; once Ann came back under T-1, a check-in of
  // Zoe's comp key landed on Ann's account, exit 0.
  it("refuses a removed person's key merged into a new person's, and holds it", async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml': MIRROR_JOB,
      'tickets.csv': csv('T-1,ann@leave.example,Ann,Lee', ...OTHERS),
      'comp.csv': csv('C-1,ann@leave.example,Ann,Lee'),
      'ci.yaml': 'name: doors\nsteps:\n  - { mapping: check_ins, source: { csv: ./ci.csv } }\n',
      'ci.csv':
        'check_in_id,user_client_id,location_type,location_id,center,display_value\n' +
        'ci-1,C-1,,,"13.1,52.5",Comp door\n',
    });
    expect((await ws.run(sandbox, ['run', 'job.yaml'])).code).toBe(0);
    ws.write({ 'tickets.csv': csv(...OTHERS), 'comp.csv': csv() });
    expect((await ws.run(sandbox, ['run', 'job.yaml', '--force'])).code).toBe(0);

    ws.write({
      'tickets.csv': csv(...OTHERS, 'T-9,zoe@leave.example,Zoe,Park'),
      'comp.csv': csv('C-1,zoe@leave.example,Zoe,Park'),
    });
    const plan = await ws.run(sandbox, ['plan', 'job.yaml']);
    expect(plan.stdout).toContain('user "C-1" (merged into "T-9"): "Ann Lee" <ann@leave.example>');
    const calls = sandbox.counters.snapshot().total;
    const zoe = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(zoe.code, zoe.stdout + zoe.stderr).toBe(1);
    // Nothing sent for her row but the signature check.
    expect(sandbox.counters.snapshot().total - calls).toBe(1);
    const report = await ws.run(sandbox, ['report', 'latest', '--status', 'failed', '--format', 'json']);
    expect(report.stdout).toContain('EVSYNC_KEY_OF_REMOVED_PERSON');

    // Ann back under her ticket: her account has C-1 again, and Zoe's comp check-in waits.
    ws.write({
      'tickets.csv': csv('T-1,ann@leave.example,Ann,Lee', ...OTHERS, 'T-9,zoe@leave.example,Zoe,Park'),
    });
    expect((await ws.run(sandbox, ['run', 'job.yaml'])).code).toBe(1);
    expect(conferencePeople(sandbox)).toContain('T-1 C-1 Ann Lee ann@leave.example');
    const doors = await ws.run(sandbox, ['run', 'ci.yaml']);
    expect(doors.stdout + doors.stderr).toContain('report');
    expect(sandbox.state.checkIns.size).toBe(0);
    const skipped = await ws.run(sandbox, ['report', 'latest', '--status', 'skipped', '--format', 'json']);
    expect(skipped.stdout).toContain('EVSYNC_PARENT_HELD');
  }, 120_000);
});
