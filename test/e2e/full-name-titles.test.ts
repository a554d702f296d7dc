import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople } from './conference-fixture.js';

// Luma's guest list (its real header, test/fixtures/registration/luma.csv, cut to the columns
// the mapping reads), where a guest gave their name in one field only: the build before
// split at the last word, so "Dr. Jane Smith PhD" landed as "Dr. Jane Smith" + "PhD", and a
// "Jr." became the last name.
const HEADER = 'api_id,name,first_name,last_name,email,approval_status,ticket_name';

describe('a full name with a title or a suffix', () => {
  const ws = cliWorkspace('evsync-name-titles-');
  afterAll(() => ws.close());

  it('keeps the suffix with the last name, and a comma before it is no "Last, First"', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml': 'name: guests\nmode: upsert\nsteps:\n  - { mapping: luma, source: { csv: ./luma.csv } }\n',
      'luma.csv': [
        HEADER,
        'gst-1,Dr. Jane Smith PhD,,,jane@example.org,approved,General',
        'gst-2,"Martin Luther King, Jr.",,,mlk@example.org,approved,General',
        'gst-3,"Lovelace, Ada",,,ada@example.org,approved,General',
        '',
      ].join('\n'),
    });
    const run = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(conferencePeople(sandbox)).toEqual([
      'luma-gst-1 Dr. Jane Smith PhD jane@example.org',
      'luma-gst-2 Martin Luther King Jr. mlk@example.org',
      'luma-gst-3 Ada Lovelace ada@example.org',
    ]);
    const users = sandbox.state.conferenceUsers();
    expect(users.map((user) => [user.firstName, user.lastName])).toEqual(
      expect.arrayContaining([
        ['Dr. Jane', 'Smith PhD'],
        ['Martin Luther', 'King Jr.'],
      ]),
    );
  }, 60_000);
});
