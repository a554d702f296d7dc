import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople } from './conference-fixture.js';

const HEADER = 'client_id,email,first_name,last_name';

// A key that moves to another person: a pretix list exported without its ticket secrets is
// keyed `<order>-<place>` and sorted by name, so a renamed attendee swaps places with
// another; a Tito ticket is handed on. The build before updated each account by the key:
// Amy's account became Zoe's and Zoe's became Zuri's, "updated", exit 0.
describe('a client_id whose row now names another person', () => {
  const ws = cliWorkspace('evsync-key-moves-');
  afterAll(() => ws.close());

  it('is refused, and the same person with a new name or a new e-mail is updated', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml':
        'name: tickets\nmode: upsert\nsteps:\n  - { mapping: users, source: { csv: ./people.csv } }\n',
      'people.csv': [
        HEADER,
        'QWE12-1,amy@example.org,Amy,Able',
        'QWE12-2,zoe@example.org,Zoe,Zed',
        'CY-1,cy@example.org,Cy,Clark',
        'DEE-1,dee@example.org,Dee,Doe',
        '',
      ].join('\n'),
    });
    const first = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const before = conferencePeople(sandbox);

    ws.write({
      'people.csv': [
        HEADER,
        'QWE12-1,zoe@example.org,Zoe,Zed',
        'QWE12-2,zuri@example.org,Zuri,Able',
        'CY-1,cy.clark@example.org,Cy,Clark',
        'DEE-1,dee@example.org,Dee,Smith',
        '',
      ].join('\n'),
    });
    const second = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(second.code, second.stdout + second.stderr).toBe(1);
    expect(second.stdout).toMatch(/^user +0 +0 +2 +0 +0 +0 +2$/m);
    expect(conferencePeople(sandbox)).toEqual([
      'CY-1 Cy Clark cy.clark@example.org',
      'DEE-1 Dee Smith dee@example.org',
      ...before.filter((line) => line.startsWith('QWE12')),
    ]);

    const report = await ws.run(sandbox, ['report', 'latest', '--status', 'failed', '--format', 'json']);
    const rows = JSON.parse(report.stdout) as Array<{ key: string; error_code: string; message: string }>;
    expect(rows.map((row) => [row.key, row.error_code]).sort()).toEqual([
      ['QWE12-1', 'EVSYNC_KEY_NOW_ANOTHER_PERSON'],
      ['QWE12-2', 'EVSYNC_KEY_NOW_ANOTHER_PERSON'],
    ]);
    expect(rows.find((row) => row.key === 'QWE12-1')?.message).toContain(
      'client_id "QWE12-1" was "Amy Able" <amy@example.org> when last synced, and this row makes it "Zoe Zed" <zoe@example.org>',
    );
  }, 90_000);
});
