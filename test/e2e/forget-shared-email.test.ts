import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople } from './conference-fixture.js';

const HEADER = 'client_id,email,first_name,last_name';

// `evsync forget` finds a person through the ledger's rows: an e-mail gives a client_id,
// whose rows give another e-mail. The build before followed an e-mail into another
// person's rows: an assistant's address booked for two bosses, or an address handed on
// from one attendee to another. Forgetting one removed both from the conference, and
// their tombstones suppressed the innocent one in every later run.
describe('evsync forget of a person whose e-mail another person had', () => {
  const ws = cliWorkspace('evsync-forget-shared-');
  afterAll(() => ws.close());

  it('removes that person only, never the other holder of the e-mail', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml':
        'name: staff\nmode: upsert\nsteps:\n  - { mapping: users, source: { csv: ./people.csv } }\n',
      'people.csv': [
        HEADER,
        'b-1,assistant@corp.example.org,Boss,One',
        'b-2,assistant@corp.example.org,Boss,Two',
        'j-1,jean@example.org,Jean,Jones',
        '',
      ].join('\n'),
    });
    // Boss Two fails: the e-mail is Boss One's.
    const first = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(1);
    // Boss Two gets an address of their own, and Jean changes hers; the night after, Zed
    // is given her old one. (In one run, Zed's create could find Jean's account by the
    // address before her update moved it: refused as hers, EVSYNC_ACCOUNT_OF_ANOTHER.)
    const rows = [
      HEADER,
      'b-1,assistant@corp.example.org,Boss,One',
      'b-2,boss2@corp.example.org,Boss,Two',
      'j-1,jean.jones@example.org,Jean,Jones',
    ];
    ws.write({ 'people.csv': `${rows.join('\n')}\n` });
    const second = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    ws.write({ 'people.csv': `${[...rows, 'z-1,jean@example.org,Zed,Zimmer'].join('\n')}\n` });
    const handedOn = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(handedOn.code, handedOn.stdout + handedOn.stderr).toBe(0);
    expect(conferencePeople(sandbox)).toHaveLength(4);

    // A typo finds nobody, and says so (the tombstone it records is lifted at once).
    const typo = await ws.run(sandbox, ['forget', '--client-id', 'b-9', '--job', 'job.yaml']);
    expect(typo.code, typo.stdout + typo.stderr).toBe(0);
    expect(typo.stdout).toContain('Nothing of this person was in the ledger or on the platform');
    const lifted = await ws.run(sandbox, ['forget', '--undo', '--client-id', 'b-9', '--job', 'job.yaml']);
    expect(lifted.code, lifted.stdout + lifted.stderr).toBe(0);
    expect(conferencePeople(sandbox)).toHaveLength(4);

    for (const key of ['b-1', 'z-1']) {
      const forget = await ws.run(sandbox, ['forget', '--client-id', key, '--job', 'job.yaml', '--json']);
      expect(forget.code, forget.stdout + forget.stderr).toBe(0);
    }
    expect(conferencePeople(sandbox)).toEqual([
      'b-2 Boss Two boss2@corp.example.org',
      'j-1 Jean Jones jean.jones@example.org',
    ]);

    // The next run suppresses the two forgotten people and leaves the others as they are.
    const third = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(third.code, third.stdout + third.stderr).toBe(0);
    expect(third.stdout).toMatch(/^user +0 +0 +0 +2 +0 +2 +0$/m);
    expect(conferencePeople(sandbox)).toHaveLength(2);
  }, 120_000);
});
