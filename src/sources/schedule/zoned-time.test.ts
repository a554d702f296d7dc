import { describe, expect, it } from 'vitest';
import { checkTimeZone, formatInZone, instantInZone, writtenOffsetMinutes } from './zoned-time.js';

const inZone = (local: string, zone: string): string => formatInZone(instantInZone(local, zone)!, zone);

describe('zoned time', () => {
  it('gives winter and summer offsets', () => {
    expect(inZone('2024-01-15T09:00:00', 'Europe/Berlin')).toBe('2024-01-15T09:00:00+01:00');
    expect(inZone('2024-07-15T09:00', 'Europe/Berlin')).toBe('2024-07-15T09:00:00+02:00');
    expect(inZone('2024-07-15T09:00:00', 'America/New_York')).toBe('2024-07-15T09:00:00-04:00');
    expect(inZone('2024-07-15T09:00:00', 'Asia/Kolkata')).toBe('2024-07-15T09:00:00+05:30');
    expect(inZone('2024-07-15T09:00:00', 'UTC')).toBe('2024-07-15T09:00:00+00:00');
  });

  it('reads the hour skipped in spring as if the clock had not changed yet', () => {
    expect(inZone('2024-03-31T02:30:00', 'Europe/Berlin')).toBe('2024-03-31T03:30:00+02:00');
    expect(inZone('2024-03-10T02:30:00', 'America/New_York')).toBe('2024-03-10T03:30:00-04:00');
  });

  it('takes the first of the hour repeated in autumn', () => {
    expect(inZone('2024-10-27T02:30:00', 'Europe/Berlin')).toBe('2024-10-27T02:30:00+02:00');
    expect(inZone('2024-10-27T03:30:00', 'Europe/Berlin')).toBe('2024-10-27T03:30:00+01:00');
  });

  it('refuses what is not a local time or a zone', () => {
    expect(instantInZone('28/03/2020 08:00', 'UTC')).toBeUndefined();
    expect(() => checkTimeZone('Mars/Olympus', 'timezone')).toThrow(/not an IANA time zone/);
  });

  it('reads written offsets', () => {
    expect(writtenOffsetMinutes('2020-12-14T09:00:00+01:00')).toBe(60);
    expect(writtenOffsetMinutes('2017-05-27T09:00:00Z')).toBe(0);
    expect(writtenOffsetMinutes('2017-05-27T09:00:00-0330')).toBe(-210);
    expect(writtenOffsetMinutes('2017-05-27T09:00:00')).toBeUndefined();
  });
});
