import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople, TITO_HEADER, titoTicket } from './conference-fixture.js';

const MIA = { first: 'Mia', last: 'Moe', email: 'mia@example.org' };
const ZOE = { first: 'Zoe', last: 'Zed', email: 'zoe@example.org' };

// A buyer orders two Tito tickets: Tito assigns neither until she names their holders. The
// build before let her name and e-mail stand in for the first ticket, so the platform made
// her an account under `tito-GIAO-1`; when she handed that ticket to Zoe, every run refused
// Zoe as another person under the key (exit 1), and Zoe never got an account.
describe('a Tito ticket assigned after its purchase', () => {
  const ws = cliWorkspace('evsync-tito-assign-');
  afterAll(() => ws.close());

  it('waits, skipped with the reason, then lands its holder', async () => {
    const sandbox = await ws.sandbox();
    const write = (...rows: string[]): void =>
      ws.write({
        'job.yaml':
          'name: tickets\nmode: upsert\nsteps:\n  - { mapping: tito, source: { csv: ./tito.csv } }\n',
        'tito.csv': [TITO_HEADER, ...rows, ''].join('\n'),
      });

    write(titoTicket('GIAO-1', undefined, MIA), titoTicket('GIAO-2', undefined, MIA));
    const before = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(before.code, before.stdout + before.stderr).toBe(0);
    expect(conferencePeople(sandbox)).toEqual([]);
    // Found by the ticket's client_id, though recorded under its row's place.
    const skipped = await ws.run(sandbox, [
      'report',
      'latest',
      '--search',
      'tito-GIAO-1',
      '--format',
      'json',
    ]);
    const rows = JSON.parse(skipped.stdout) as Array<{ key: string; action: string; message: string }>;
    expect(rows.map((row) => [row.key, row.action])).toEqual([['@./tito.csv:1', 'skipped']]);
    expect(rows[0]?.message).toBe(
      'ticket not yet assigned in Tito; it syncs once Tito names its holder (Ticket Email is empty)',
    );

    // Mia hands the first ticket to Zoe and keeps the second.
    write(titoTicket('GIAO-1', ZOE, MIA), titoTicket('GIAO-2', MIA));
    const after = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(after.code, after.stdout + after.stderr).toBe(0);
    expect(conferencePeople(sandbox)).toEqual([
      'tito-GIAO-1 Zoe Zed zoe@example.org',
      'tito-GIAO-2 Mia Moe mia@example.org',
    ]);
  }, 90_000);

  it('keeps the buyer out of a holder, and a renamed e-mail column is missing data', async () => {
    const sandbox = await ws.sandbox();
    // Billing columns some exports carry beside Tito's own `Order …` ones.
    const extra = ',Order Postal Code,Billing Country,Buyer Title,Receipt Number,Order Discount Code';
    ws.write({
      'job.yaml':
        'name: tickets\nmode: upsert\nsteps:\n' +
        '  - { mapping: tito, source: { csv: ./tito.csv }, custom_data: { columns: all_unmapped } }\n',
      'tito.csv': [
        TITO_HEADER + extra,
        `${titoTicket('GIAO-1', ZOE, MIA)},10115,DE,Dr.,R-881,EARLY`,
        '',
      ].join('\n'),
    });
    const run = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const zoe = sandbox.state.conferenceUsers().find((user) => user.email === ZOE.email);
    expect(Object.keys(zoe?.customData ?? {}).sort()).toEqual([
      'Number',
      'Order Discount Code',
      'Ticket Created Date',
      'ticket',
      'tito_order',
    ]);

    // An export whose holder e-mail column has another name: no ticket is "not yet assigned".
    ws.write({
      'renamed.csv': [
        TITO_HEADER.replace('Ticket Email', 'Attendee E-mail'),
        titoTicket('GIAO-1', ZOE, MIA),
        '',
      ].join('\n'),
    });
    const validate = await ws.run(sandbox, ['validate', '--source', 'renamed.csv', '--mapping', 'tito']);
    expect(validate.code, validate.stdout + validate.stderr).toBe(1);
    expect(validate.stdout).toContain('the source\'s header has no column "Ticket Email"');
    expect(validate.stdout).toContain('Rename "Attendee E-mail" in the source to "Ticket Email"');
  }, 90_000);
});
