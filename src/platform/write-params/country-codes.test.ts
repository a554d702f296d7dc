import { describe, expect, it } from 'vitest';

import { COUNTRY_CODES, countryCodeSchema, isCountryCode } from './country-codes.js';

describe('COUNTRY_CODES', () => {
  it('holds the 249 officially assigned ISO 3166-1 alpha-2 codes', () => {
    expect(COUNTRY_CODES.size).toBe(249);
    for (const code of COUNTRY_CODES) expect(code).toMatch(/^[A-Z]{2}$/);
  });

  it('matches the regions ICU knows, minus codes that are not officially assigned', () => {
    const notAssigned = new Set(
      'AC AN BU CP CQ CS DD DG DY EA EU EZ FX HV IC NH QO RH SU TA TP UK UN VD XA XB XK YD YU ZR ZZ'.split(
        ' ',
      ),
    );
    const regions = new Intl.DisplayNames(['en'], { type: 'region' });
    const known: string[] = [];
    for (let a = 65; a <= 90; a++) {
      for (let b = 65; b <= 90; b++) {
        const code = String.fromCharCode(a, b);
        if (regions.of(code) !== code && !notAssigned.has(code)) known.push(code);
      }
    }
    // Only meaningful with full ICU (Node's default build); small-icu knows English names too.
    expect([...COUNTRY_CODES].sort()).toEqual(known);
  });

  it.each(['US', 'CA', 'DE', 'GB', 'SS', 'CW', 'AX', 'BQ'])('accepts %s', (code) => {
    expect(isCountryCode(code)).toBe(true);
  });

  it.each(['us', 'UK', 'EU', 'XK', 'AN', 'YU', 'USA', 'U', '', ' US'])('refuses %j', (code) => {
    expect(isCountryCode(code)).toBe(false);
    expect(countryCodeSchema.safeParse(code).success).toBe(false);
  });
});
