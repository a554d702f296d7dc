import { afterAll, describe, expect, it } from 'vitest';
import { applySeed } from '../../src/sandbox/sandbox-seed.js';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople } from './conference-fixture.js';

// A moderator added on the platform by hand has no client_id. A registrant types the
// moderator's address: the create answers "already taken", and the build before found the
// account by the e-mail and updated it, renaming "Quentin Staff" into "Rita Guest" and
// making him a member, exit 0; mirror mode then removed him when her ticket was refunded.
describe('an account made on the platform by hand or by another tool, found by a row giving its e-mail', () => {
  const ws = cliWorkspace('evsync-hand-made-');
  afterAll(() => ws.close());

  it('is not given to another person; the same person is updated and keyed', async () => {
    const sandbox = await ws.sandbox();
    applySeed(sandbox.state, {
      users: [
        { first_name: 'Quentin', last_name: 'Staff', email: 'quentin@example.org', in_conference: true },
        { first_name: 'Ursula', last_name: 'Usher', email: 'ursula@example.org', in_conference: true },
        // Made by another tool: keyed, but by a client_id no source of evsync has.
        {
          first_name: 'Bob',
          last_name: 'Brown',
          email: 'bob@example.org',
          in_conference: true,
          client_ids: ['LEGACY-7'],
        },
      ],
    });
    ws.write({
      'job.yaml':
        'name: guests\nmode: upsert\nsteps:\n  - { mapping: users, source: { csv: ./people.csv } }\n',
      'people.csv':
        'client_id,email,first_name,last_name\ng-1,quentin@example.org,Rita,Guest\ng-2,ursula@example.org,Ursula,Usher\n' +
        'g-3,bob@example.org,Ann,Able\n',
    });
    const run = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(conferencePeople(sandbox)).toEqual([
      ' Quentin Staff quentin@example.org',
      'LEGACY-7 Bob Brown bob@example.org',
      'g-2 Ursula Usher ursula@example.org',
    ]);
    const report = await ws.run(sandbox, ['report', 'latest', '--status', 'failed', '--format', 'json']);
    const rows = JSON.parse(report.stdout) as Array<{ key: string; error_code: string; message: string }>;
    expect(rows.map((row) => [row.key, row.error_code]).sort()).toEqual([
      ['g-1', 'EVSYNC_ACCOUNT_OF_ANOTHER'],
      ['g-3', 'EVSYNC_ACCOUNT_OF_ANOTHER'],
    ]);
    expect(rows.find((row) => row.key === 'g-1')?.message).toContain(
      '"Quentin Staff" (found by the e-mail quentin@example.org) has no client_id',
    );
    // The build before renamed Bob's account into Ann's, "updated".
    expect(rows.find((row) => row.key === 'g-3')?.message).toContain(
      '"Bob Brown" (found by the e-mail bob@example.org) is the account of "LEGACY-7", a client_id no source of this ledger has',
    );
  }, 90_000);
});
