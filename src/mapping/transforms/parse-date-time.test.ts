import { describe, expect, it } from 'vitest';
import { parseDateTime } from './parse-date-time.js';
import { zonedWallTimeToIso } from './zoned-date-time.js';

const berlin = { timezone: 'Europe/Berlin' };

describe('parseDateTime', () => {
  it.each([
    ['2026-03-28 08:00', berlin, '2026-03-28T08:00:00+01:00'],
    ['2026-03-28T08:00:30', berlin, '2026-03-28T08:00:30+01:00'],
    ['28/03/2026 08:00', berlin, '2026-03-28T08:00:00+01:00'],
    ['28.03.2026 08:00', berlin, '2026-03-28T08:00:00+01:00'],
    ['3/28/2026 8:00 AM', { timezone: 'America/New_York' }, '2026-03-28T08:00:00-04:00'],
    ['3/28/2026 8:00 PM', { timezone: 'America/New_York' }, '2026-03-28T20:00:00-04:00'],
    ['3/28/2026 12:15 am', { timezone: 'UTC' }, '2026-03-28T00:15:00+00:00'],
    ['2026-07-01 08:00', berlin, '2026-07-01T08:00:00+02:00'],
    ['2026-03-28', berlin, '2026-03-28T00:00:00+01:00'],
    ['2026-03-28T08:00:00Z', berlin, '2026-03-28T08:00:00+00:00'],
    ['2026-03-28T08:00:00.250-0530', berlin, '2026-03-28T08:00:00-05:30'],
    ['2026-03-28 08:00 +02:00', berlin, '2026-03-28T08:00:00+02:00'],
    ['03/04/2026 10:00', { timezone: 'UTC', dateOrder: 'dmy' as const }, '2026-04-03T10:00:00+00:00'],
    ['03/04/2026 10:00', { timezone: 'UTC', dateOrder: 'mdy' as const }, '2026-03-04T10:00:00+00:00'],
    ['  2026-03-28 08:00  ', { timezone: 'Asia/Kolkata' }, '2026-03-28T08:00:00+05:30'],
  ])('%s → %s', (input, options, expected) => {
    expect(parseDateTime(input, options)).toEqual({ ok: true, value: expected });
  });

  it('refuses a wall time that the clocks skip (DST starts), naming the zone', () => {
    const result = parseDateTime('2026-03-29 02:30', berlin);
    expect(result).toEqual({
      ok: false,
      message: '"2026-03-29 02:30" does not exist in Europe/Berlin (the clocks skip it)',
    });
  });

  it('reads a repeated hour (DST ends) as its first occurrence', () => {
    expect(parseDateTime('2026-10-25 02:30', berlin)).toEqual({
      ok: true,
      value: '2026-10-25T02:30:00+02:00',
    });
    expect(parseDateTime('2026-11-01 01:30', { timezone: 'America/New_York' })).toEqual({
      ok: true,
      value: '2026-11-01T01:30:00-04:00',
    });
  });

  it('asks for date_order when day and month could be swapped', () => {
    const result = parseDateTime('03/04/2026', { timezone: 'UTC' });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain('set date_order (dmy or mdy)');
  });

  it.each([
    '2026-02-30 10:00',
    '31/04/2026',
    '2026-13-01',
    '25:00',
    'next tuesday',
    '13/28/2026 8:00 PM',
    '2026-03-28 13:00 PM',
  ])('refuses %s with the value quoted', (input) => {
    const result = parseDateTime(input, { timezone: 'UTC' });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain(JSON.stringify(input));
  });
});

describe('zonedWallTimeToIso', () => {
  it('uses the zone offset of that very date (southern hemisphere DST too)', () => {
    const wall = { year: 2026, month: 1, day: 15, hour: 12, minute: 0, second: 0 };
    expect(zonedWallTimeToIso(wall, 'Australia/Sydney')).toEqual({
      ok: true,
      iso: '2026-01-15T12:00:00+11:00',
    });
    expect(zonedWallTimeToIso({ ...wall, month: 7 }, 'Australia/Sydney')).toEqual({
      ok: true,
      iso: '2026-07-15T12:00:00+10:00',
    });
  });
});
