import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';

const TITO_HEADER =
  'Ticket,Ticket Full Name,Ticket First Name,Ticket Last Name,Ticket Email,Ticket Company Name,Void Status,Ticket Reference,Order Reference,Order Name,Order Email\n';
const ticket = (reference: string, first: string, last: string, email: string): string =>
  `General,${first} ${last},${first},${last},${email},,,${reference},${reference.split('-')[0]},${first} ${last},${email}\n`;

// A reviewing helper's fault: a Tito ticket handed on within a family (Paul Smith to Paula
// Smith, Jan Novak to Jana Novak) keeps its reference, with a new name and e-mail. The next
// run took "Paul" for a short form of "Paula" and renamed Paul's account into Paula, with her
// e-mail, exit 0. A new e-mail now needs names alike word for word; the row is refused as a
// ticket handed to another person is. The built CLI, embedded ledger.
describe('a ticket handed on within a family (built CLI)', () => {
  let ws: CliWorkspace;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    ws = cliWorkspace('evsync-family-ticket-');
    sandbox = await ws.sandbox();
  });
  afterAll(async () => ws?.close());

  it('does not rename Paul’s account into Paula’s, nor Jan’s into Jana’s', async () => {
    ws.write({
      'job.yaml': 'name: tito\nsteps:\n  - { mapping: tito, source: { csv: ./tito.csv } }\n',
      'tito.csv':
        TITO_HEADER +
        ticket('TT01-1', 'Paul', 'Smith', 'paul.smith@example.org') +
        ticket('TT02-1', 'Jan', 'Novak', 'jan@example.org') +
        ticket('TT03-1', 'Ada', 'Lovelace', 'ada@example.org'),
    });
    const first = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const before = ['TT01-1', 'TT02-1', 'TT03-1'].map((ref) => sandbox.state.userByClientId(`tito-${ref}`)!);

    ws.write({
      'tito.csv':
        TITO_HEADER +
        ticket('TT01-1', 'Paula', 'Smith', 'paula.smith@example.org') +
        ticket('TT02-1', 'Jana', 'Novak', 'jana.novakova@example.org') +
        // The same person with a new address is still updated.
        ticket('TT03-1', 'Ada', 'Lovelace', 'ada.lovelace@example.org'),
    });
    const second = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(second.code, second.stdout + second.stderr).toBe(1);
    expect(second.stdout).toMatch(/^user +0 +0 +1 +0 +0 +0 +2$/m);
    const after = before.map((user) => sandbox.state.users.get(user.id)!);
    expect(after.map((user) => [user.firstName, user.email])).toEqual([
      ['Paul', 'paul.smith@example.org'],
      ['Jan', 'jan@example.org'],
      ['Ada', 'ada.lovelace@example.org'],
    ]);
    const report = await ws.run(sandbox, ['report', 'latest', '--status', 'failed']);
    expect(report.stdout.match(/EVSYNC_KEY_NOW_ANOTHER_PERSON/g)).toHaveLength(2);
    expect(report.stdout).toContain('Paula Smith');
  });
});
