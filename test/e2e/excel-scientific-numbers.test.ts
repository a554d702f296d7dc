import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople } from './conference-fixture.js';

// An Eventbrite attendee report (US headers) opened and saved by Excel: the attendee numbers
// and phone numbers of 12 digits are in scientific notation, rounded to 6 digits. The build
// before created Ann as `eb-2.36021E+11`, left Ben out as her "duplicate", and sent Cat's
// cell number as `4.91761E+11`, exit 0.
const HEADER =
  'Order #,Order Date,First Name,Last Name,Email,Quantity,Ticket Type,Attendee #,Attendee Status,Cell Phone';
const row = (order: string, attendee: string, first: string, email: string, cell: string): string =>
  `${order},2026-03-01 10:00,${first},Test,${email},1,General Admission,${attendee},Attending,${cell}`;

describe('numbers Excel rounded into scientific notation in an Eventbrite export', () => {
  const ws = cliWorkspace('evsync-excel-numbers-');
  afterAll(() => ws.close());

  it('fails the rows keyed by one, and sends a person without such a phone, with a warning', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml': 'name: eb\nmode: upsert\nsteps:\n  - { mapping: eventbrite, source: { csv: ./eb.csv } }\n',
      'eb.csv': [
        HEADER,
        row('9001', '2.36021E+11', 'Ann', 'ann@example.org', ''),
        row('9002', '2.36021E+11', 'Ben', 'ben@example.org', ''),
        row('9003', '236021000003', 'Cat', 'cat@example.org', '4.91761E+11'),
        '',
      ].join('\n'),
    });
    const run = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(conferencePeople(sandbox)).toEqual(['eb-236021000003 Cat Test cat@example.org']);
    expect(sandbox.state.userByClientId('eb-236021000003')?.phones).toEqual([]);

    const report = await ws.run(sandbox, ['report', 'latest', '--format', 'json']);
    const rows = JSON.parse(report.stdout) as Array<{ action: string; error_code: string; message: string }>;
    const failed = rows.filter((r) => r.action === 'failed');
    expect(failed.map((r) => r.error_code)).toEqual(['MAPPING_EXCEL_NUMBER', 'MAPPING_EXCEL_NUMBER']);
    expect(failed[0]?.message).toContain(
      '"eb-2.36021E+11" holds 2.36021E+11, a number Excel rounded into scientific notation',
    );
    expect(failed[0]?.message).toContain(
      'export the file again and sync it without opening it in Excel, or import it into Excel with this column formatted as text',
    );
    const cat = rows.find((r) => r.action === 'created');
    expect(cat?.error_code).toBe('MAPPING_FIELD_LEFT_OUT');
    expect(cat?.message).toContain(
      '"4.91761E+11" is a number Excel rounded into scientific notation, not the phone number',
    );
  }, 90_000);
});
