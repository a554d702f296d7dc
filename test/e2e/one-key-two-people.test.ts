import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople, TITO_HEADER, titoTicket } from './conference-fixture.js';

// Tito's ticket export, synthetic rows.
const ticket = (ref: string, first: string, last: string, email: string): string =>
  titoTicket(ref, { first, last, email });

// Two exports pasted into one file, a ticket handed on between them: one Ticket Reference
// for two people. The shipped Tito mapping says `on_duplicate: first`, and the build before
// took Zed's row for a repeat of Amy's: left out as a "duplicate", exit 0, and Zed never got
// an account. Under `on_duplicate: last` Zed's row would have taken Amy's account.
describe('one key given to two people in one export', () => {
  const ws = cliWorkspace('evsync-one-key-two-');
  afterAll(() => ws.close());

  it('stops the second person, says whose key it is, and exits 1', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml': 'name: tickets\nmode: upsert\nsteps:\n  - { mapping: tito, source: { csv: ./tito.csv } }\n',
      'tito.csv': [
        TITO_HEADER,
        ticket('QW3R-1', 'Amy', 'Able', 'amy@example.org'),
        ticket('QW3R-2', 'Bo', 'Brand', 'bo@example.org'),
        // The same ticket: Amy again under a corrected name, a repeat to leave out.
        ticket('QW3R-1', 'Amy', 'Able-Baker', 'amy@example.org'),
        // The same ticket, handed on to another person.
        ticket('QW3R-1', 'Zed', 'Zimmer', 'zed@example.org'),
        '',
      ].join('\n'),
    });
    const run = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(conferencePeople(sandbox)).toEqual([
      'tito-QW3R-1 Amy Able amy@example.org',
      'tito-QW3R-2 Bo Brand bo@example.org',
    ]);

    const report = await ws.run(sandbox, ['report', 'latest', '--format', 'json']);
    const rows = JSON.parse(report.stdout) as Array<{
      key: string;
      action: string;
      error_code: string;
      message: string;
    }>;
    const notSent = rows
      .filter((row) => row.action !== 'created')
      .map((row) => [row.key, row.action, row.error_code]);
    expect(notSent.sort()).toEqual([
      ['tito-QW3R-1#row3', 'skipped', 'EVSYNC_DUPLICATE_ROW'],
      ['tito-QW3R-1#row4', 'failed', 'MAPPING_SHARED_KEY'],
    ]);
    expect(rows.find((row) => row.error_code === 'MAPPING_SHARED_KEY')?.message).toContain(
      'client_id "tito-QW3R-1" was already used by row 1 for another person (another name and e-mail than "Zed Zimmer", "zed@example.org")',
    );
  }, 90_000);
});
