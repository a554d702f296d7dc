import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { compareXmlDateTimes, isXmlDateTime, parseXmlDateTime, xmlDateTimeSchema } from './datetime.js';

describe('parseXmlDateTime', () => {
  it.each([
    ['2026-05-04T09:30:00Z', Date.UTC(2026, 4, 4, 9, 30) / 1000, 0],
    ['2026-05-04T09:30:00+02:00', Date.UTC(2026, 4, 4, 7, 30) / 1000, 120],
    ['2026-05-04T09:30:00-05:30', Date.UTC(2026, 4, 4, 15, 0) / 1000, -330],
    ['2026-05-04T09:30:00', Date.UTC(2026, 4, 4, 9, 30) / 1000, null],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29) / 1000, 0],
    ['2000-02-29T23:59:59+14:00', Date.UTC(2000, 1, 29, 9, 59, 59) / 1000, 840],
    ['1969-12-31T23:59:59Z', -1, 0],
    ['2026-05-04T24:00:00Z', Date.UTC(2026, 4, 5) / 1000, 0],
  ])('reads %s', (text, epochSeconds, offsetMinutes) => {
    expect(parseXmlDateTime(text)).toEqual({ epochSeconds, fraction: '', offsetMinutes });
  });

  it('keeps fractional seconds without trailing zeros', () => {
    expect(parseXmlDateTime('2026-05-04T09:30:00.250Z')?.fraction).toBe('25');
    expect(parseXmlDateTime('2026-05-04T09:30:00.000000Z')?.fraction).toBe('');
    expect(parseXmlDateTime('2026-05-04T09:30:00.123456789Z')?.fraction).toBe('123456789');
  });

  it('reads years below 100 as themselves, not as 19xx', () => {
    expect(parseXmlDateTime('0099-01-01T00:00:00Z')?.epochSeconds).toBe(-59_042_995_200);
    expect(parseXmlDateTime('0001-01-01T00:00:00Z')?.epochSeconds).toBe(-62_135_596_800);
  });

  it.each([
    '',
    '2026-05-04',
    '2026-05-04 09:30:00Z',
    '2026-05-04T09:30Z',
    '2026-05-04T9:30:00Z',
    '2026-5-04T09:30:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-01T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-05-04T25:00:00Z',
    '2026-05-04T24:00:01Z',
    '2026-05-04T24:00:00.5Z',
    '2026-05-04T09:60:00Z',
    '2026-05-04T09:30:60Z',
    '2026-05-04T09:30:00+15:00',
    '2026-05-04T09:30:00+14:30',
    '2026-05-04T09:30:00+02:60',
    '2026-05-04T09:30:00+0200',
    '2026-05-04T09:30:00z',
    '2026-05-04T09:30:00.Z',
    '0000-01-01T00:00:00Z',
    '12026-01-01T00:00:00Z',
    '-2026-01-01T00:00:00Z',
    ' 2026-05-04T09:30:00Z',
    '2026-05-04t09:30:00Z',
    'Mon, 04 May 2026 09:30:00 GMT',
  ])('refuses %j', (text) => {
    expect(parseXmlDateTime(text)).toBeUndefined();
    expect(isXmlDateTime(text)).toBe(false);
  });

  it('agrees with Date for every instant with an offset', () => {
    const instant = fc.date({
      min: new Date('1000-01-01T00:00:00Z'),
      max: new Date('9998-12-31T00:00:00Z'),
      noInvalidDate: true,
    });
    const offset = fc.integer({ min: -14 * 60, max: 14 * 60 });
    fc.assert(
      fc.property(instant, offset, (date, offsetMinutes) => {
        const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 23);
        const sign = offsetMinutes < 0 ? '-' : '+';
        const abs = Math.abs(offsetMinutes);
        const suffix = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
        const parsed = parseXmlDateTime(`${local}${suffix}`);
        expect(parsed?.epochSeconds).toBe(Math.floor(date.getTime() / 1000));
      }),
    );
  });
});

describe('compareXmlDateTimes', () => {
  const compare = (a: string, b: string): number =>
    compareXmlDateTimes(parseXmlDateTime(a)!, parseXmlDateTime(b)!);

  it('compares instants across offsets', () => {
    expect(compare('2026-05-04T10:00:00+02:00', '2026-05-04T08:30:00Z')).toBeLessThan(0);
    expect(compare('2026-05-04T10:00:00+02:00', '2026-05-04T08:00:00Z')).toBe(0);
    expect(compare('2026-05-04T00:30:00-01:00', '2026-05-04T01:00:00+00:00')).toBeGreaterThan(0);
  });

  it('compares fractions digit by digit, beyond milliseconds', () => {
    expect(compare('2026-05-04T10:00:00.5Z', '2026-05-04T10:00:00.49999Z')).toBeGreaterThan(0);
    expect(compare('2026-05-04T10:00:00.1234567Z', '2026-05-04T10:00:00.1234568Z')).toBeLessThan(0);
    expect(compare('2026-05-04T10:00:00.10Z', '2026-05-04T10:00:00.1Z')).toBe(0);
    expect(compare('2026-05-04T10:00:00Z', '2026-05-04T10:00:00.000Z')).toBe(0);
  });

  it('reads values without an offset as UTC', () => {
    expect(compare('2026-05-04T10:00:00', '2026-05-04T10:00:00Z')).toBe(0);
  });
});

describe('xmlDateTimeSchema', () => {
  it('validates with a message that shows the expected form', () => {
    expect(xmlDateTimeSchema.safeParse('2026-05-04T09:30:00Z').success).toBe(true);
    expect(xmlDateTimeSchema.safeParse('04/05/2026').error?.issues[0]?.message).toMatch(
      /2026-05-04T09:30:00\+02:00/,
    );
  });
});
