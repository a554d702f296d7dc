import { describe, expect, it } from 'vitest';
import { recogniseExport } from './recognise-export.js';

const names = async (header: string[]): Promise<string[]> =>
  (await recogniseExport(header, 'svc')).map((found) => found.mapping);

describe('recogniseExport', () => {
  it.each([
    [
      [
        'Order code',
        'Attendee name',
        'Attendee name: Given name',
        'Product',
        'Checked in',
        'Secret',
        'E-mail',
      ],
      'pretix-checkin',
    ],
    [
      ['Order code', 'Position ID', 'Status', 'Email', 'Product', 'Attendee name', 'Attendee email'],
      'pretix-orders',
    ],
    [['Ticket', 'Ticket Full Name', 'Ticket Email', 'Void Status', 'Ticket Reference'], 'tito'],
    [['api_id', 'name', 'email', 'approval_status', 'checked_in_at', 'qr_code_url'], 'luma'],
    [['Order no.', 'First Name', 'Surname', 'Email', 'Ticket Type', 'Attendee Status'], 'eventbrite'],
    [
      ['Order #', 'Attendee #', 'First Name', 'Last Name', 'Email', 'Ticket Type', 'Attendee Status'],
      'eventbrite',
    ],
  ])('knows %j as %s', async (header, mapping) => {
    expect((await names(header))[0]).toBe(mapping);
  });

  it('knows nothing of a file of its own columns', async () => {
    expect(await names(['client_id', 'email', 'first_name', 'last_name'])).toEqual([]);
  });
});
