import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople } from './conference-fixture.js';

// Phone numbers as people type them into registration forms, through the shipped mappings.
// The build before sent `+4903012345678x12` (the trunk (0) kept after the country code),
// `+1800` for `+1-800-FLOWERS`, and Eventbrite's `call me` as a cell number, all exit 0.
const LUMA =
  'api_id,name,first_name,last_name,email,phone_number,approval_status,ticket_name\n' +
  'gst-p1,Pia Weber,Pia,Weber,pia@example.org,+49 (0) 30 1234-5678 ext. 12,approved,General\n' +
  'gst-p2,Flo Rist,Flo,Rist,flo@example.org,+1-800-FLOWERS,approved,General\n';
const EVENTBRITE =
  'Order #,Order Date,First Name,Last Name,Email,Quantity,Ticket Type,Attendee #,Attendee Status,Cell Phone,Work Phone\n' +
  '7001,2026-03-01 10:00,Cal,Lee,cal@example.org,1,General Admission,700101,Attending,call me,+44 (0)20 7946 0958\n';

describe('phone numbers through the shipped mappings', () => {
  const ws = cliWorkspace('evsync-phones-');
  afterAll(() => ws.close());

  it('drops the trunk (0), and leaves out text that is no number with a warning', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'luma.csv': LUMA,
      'eb.csv': EVENTBRITE,
      'job.yaml':
        'name: phones\nmode: upsert\nsteps:\n' +
        '  - { mapping: luma, source: { csv: ./luma.csv } }\n' +
        '  - { mapping: eventbrite, source: { csv: ./eb.csv } }\n',
    });
    const run = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(conferencePeople(sandbox)).toEqual([
      'eb-700101 Cal Lee cal@example.org',
      'luma-gst-p1 Pia Weber pia@example.org',
      'luma-gst-p2 Flo Rist flo@example.org',
    ]);
    const phones = (clientId: string): unknown => sandbox.state.userByClientId(clientId)?.phones;
    expect(phones('luma-gst-p1')).toEqual([expect.objectContaining({ cell_number: '+493012345678x12' })]);
    expect(phones('luma-gst-p2')).toEqual([]);
    // Each number is judged alone: the good work number is sent beside the bad cell number.
    expect(phones('eb-700101')).toEqual([
      { work_number: '+442079460958', cell_number: null, fax_number: null },
    ]);

    const report = await ws.run(sandbox, ['report', 'latest', '--format', 'json']);
    const rows = JSON.parse(report.stdout) as Array<{ key: string; error_code: string; message: string }>;
    const warned = rows.filter((r) => r.error_code === 'MAPPING_FIELD_LEFT_OUT');
    expect(warned.map((r) => r.key).sort()).toEqual(['eb-700101', 'luma-gst-p2']);
    expect(warned.find((r) => r.key === 'luma-gst-p2')?.message).toContain(
      '"+1-800-FLOWERS" is not a phone number: it has letters, or no digits',
    );
    expect(warned.find((r) => r.key === 'eb-700101')?.message).toContain('"call me" is not a phone number');
  }, 90_000);
});
