import { afterAll, describe, expect, it } from 'vitest';
import { applySeed } from '../../src/sandbox/sandbox-seed.js';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople } from './conference-fixture.js';

// A moderator added on the platform by hand has no client_id. A registrant types the
// moderator's address: the create answers "already taken", and the build before found the
// account by the e-mail and updated it, renaming "Quentin Staff" into "Rita Guest" and
// making him a member, exit 0; mirror mode then removed him when her ticket was refunded.
describe('an account made on the platform by hand, found by a row giving its e-mail', () => {
  const ws = cliWorkspace('evsync-hand-made-');
  afterAll(() => ws.close());

  it('is not given to another person; the same person is updated and keyed', async () => {
    const sandbox = await ws.sandbox();
    applySeed(sandbox.state, {
      users: [
        { first_name: 'Quentin', last_name: 'Staff', email: 'quentin@example.org', in_conference: true },
        { first_name: 'Ursula', last_name: 'Usher', email: 'ursula@example.org', in_conference: true },
      ],
    });
    ws.write({
      'job.yaml':
        'name: guests\nmode: upsert\nsteps:\n  - { mapping: users, source: { csv: ./people.csv } }\n',
      'people.csv':
        'client_id,email,first_name,last_name\ng-1,quentin@example.org,Rita,Guest\ng-2,ursula@example.org,Ursula,Usher\n',
    });
    const run = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(conferencePeople(sandbox)).toEqual([
      ' Quentin Staff quentin@example.org',
      'g-2 Ursula Usher ursula@example.org',
    ]);
    const report = await ws.run(sandbox, ['report', 'latest', '--status', 'failed', '--format', 'json']);
    const [row] = JSON.parse(report.stdout) as Array<{ key: string; error_code: string; message: string }>;
    expect(row).toMatchObject({ key: 'g-1', error_code: 'EVSYNC_ACCOUNT_OF_ANOTHER' });
    expect(row?.message).toContain(
      '"Quentin Staff" (found by the e-mail quentin@example.org) has no client_id',
    );
  }, 90_000);
});
