import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';

// The shipped Eventbrite mapping puts `Cell Phone` and `Work Phone` in one phone entry. The
// build before left the whole entry out for one bad number: a cell phone with letters, or one
// Excel rounded, took the good work phone with it, exit 0, and a later export's new work
// number never reached the platform while the cell number stayed bad.
const HEADER =
  'Order #,Order Date,First Name,Last Name,Email,Quantity,Ticket Type,Attendee #,Attendee Status,Cell Phone,Work Phone';
const row = (attendee: string, first: string, cell: string, work: string): string =>
  `9${attendee},2026-03-01 10:00,${first},Test,${first.toLowerCase()}@example.org,1,General Admission,${attendee},Attending,${cell},${work}`;

describe('phones of an Eventbrite export, each number judged alone', () => {
  const ws = cliWorkspace('evsync-eb-phones-');
  afterAll(() => ws.close());

  it('leaves a bad cell phone out with a warning naming its column, and sends the work phone beside it', async () => {
    const sandbox = await ws.sandbox();
    const phones = (clientId: string): unknown => sandbox.state.userByClientId(clientId)?.phones;
    ws.write({
      'job.yaml': 'name: eb\nmode: upsert\nsteps:\n  - { mapping: eventbrite, source: { csv: ./eb.csv } }\n',
      'eb.csv': [
        HEADER,
        row('801', 'Cat', '+1-800-FLOWERS', '+1 212 555 0100'),
        row('802', 'Dan', '4.47911E+11', '+44 20 7946 0000'),
        row('803', 'Eve', '+49 170 1234567', '+1 212 555 0101'),
        '',
      ].join('\n'),
    });
    const first = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(phones('eb-801')).toEqual([{ work_number: '+12125550100', cell_number: null, fax_number: null }]);
    expect(phones('eb-802')).toEqual([{ work_number: '+442079460000', cell_number: null, fax_number: null }]);
    // Each warning after its source's name: a job's steps each have a row 1.
    expect(first.stdout).toContain(
      '  ./eb.csv: row 1 (line 2), Cell Phone: "+1-800-FLOWERS" is not a phone number: it has letters, or no digits (write the number in digits, an extension as x12): left out',
    );
    expect(first.stdout).toMatch(
      /row 2 \(line 3\), Cell Phone: "4\.47911E\+11" is a number Excel rounded .*: left out/,
    );

    const report = await ws.run(sandbox, ['report', 'latest', '--format', 'json']);
    const rows = JSON.parse(report.stdout) as Array<{
      key: string;
      error_code: string | null;
      message: string;
    }>;
    expect(rows.filter((r) => r.error_code === 'MAPPING_FIELD_LEFT_OUT').map((r) => r.key)).toEqual([
      'eb-801',
      'eb-802',
    ]);

    // Eve's cell phone turns bad in the next export and her work phone changes: the new work
    // phone lands, and the cell phone an earlier run synced stays until the export has a good one.
    ws.write({
      'eb.csv': [HEADER, row('803', 'Eve', '+1-800-FLOWERS', '+1 212 555 0199'), ''].join('\n'),
    });
    const second = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(phones('eb-803')).toEqual([
      { work_number: '+12125550199', cell_number: '+491701234567', fax_number: null },
    ]);
  }, 120_000);
});
