import { describe, expect, it } from 'vitest';
import { isoMicros, isoSeconds, nowMicros, parseXmlDateTime, rubyTime } from './clock.js';

describe('clock', () => {
  it('parses XML dateTimes with offsets and fractions into UTC microseconds', () => {
    const micros = parseXmlDateTime('2026-06-01T09:00:00.123456+02:00')!;
    expect(isoMicros(micros)).toBe('2026-06-01T07:00:00.123456Z');
    expect(isoMicros(parseXmlDateTime('2026-06-01T09:00:00Z')!)).toBe('2026-06-01T09:00:00.000000Z');
    expect(isoMicros(parseXmlDateTime('2026-06-01T09:00:00-05:30')!)).toBe('2026-06-01T14:30:00.000000Z');
    expect(isoMicros(parseXmlDateTime('2026-06-01T09:00:00.5')!)).toBe('2026-06-01T09:00:00.500000Z');
  });

  it('refuses what is not a dateTime, including impossible dates', () => {
    for (const text of ['2026-06-01', '2026-02-30T09:00:00Z', 'tomorrow', '2026-06-01 09:00:00', '']) {
      expect(parseXmlDateTime(text)).toBeUndefined();
    }
  });

  it('formats check-in time objects and never repeats a stamp', () => {
    expect(rubyTime(1_700_000_000_123_456)).toEqual({ json_class: 'Time', s: 1_700_000_000, n: 123_456_000 });
    expect(isoSeconds(1_700_000_000_123_456)).toBe('2023-11-14T22:13:20Z');
    const stamps = Array.from({ length: 1000 }, () => nowMicros());
    expect(new Set(stamps).size).toBe(1000);
    expect(Math.abs(stamps[0]! / 1000 - Date.now())).toBeLessThan(1000);
  });
});
