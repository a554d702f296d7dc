import { describe, expect, it } from 'vitest';
import { countryCode } from './country.js';

describe('countryCode', () => {
  // The 16-row test list of issue #38: 10 of them were refused by country_code.
  it.each([
    ['Russian Federation', 'RU'],
    ["Côte d'Ivoire", 'CI'],
    ['Cote d Ivoire', 'CI'],
    ['Ivory Coast', 'CI'],
    ['Viet Nam', 'VN'],
    ['Iran, Islamic Republic of', 'IR'],
    ['Bolivia, Plurinational State of', 'BO'],
    ['Korea, Republic of', 'KR'],
    ['South Korea', 'KR'],
    ["Korea, Democratic People's Republic of", 'KP'],
    ['Congo, The Democratic Republic of the', 'CD'],
    ['Tanzania, United Republic of', 'TZ'],
    ['Taiwan, Province of China', 'TW'],
    ['Micronesia, Federated States of', 'FM'],
    ['Holy See (Vatican City State)', 'VA'],
    ['United States of America', 'US'],
    ['USA', 'US'],
    ['U.S.A.', 'US'],
    ['UK', 'GB'],
    ['uk', 'GB'],
    ['England', 'GB'],
    ['The Netherlands', 'NL'],
    ['Türkiye', 'TR'],
    ['Turkey', 'TR'],
    ['Czechia', 'CZ'],
    ['Czech Republic', 'CZ'],
    ['de', 'DE'],
    ['DEU', 'DE'],
    ['Deutschland', 'DE'],
    ['Allemagne', 'DE'],
    ['Alemania', 'DE'],
    ['Österreich', 'AT'],
    ['Schweiz', 'CH'],
    ['  sweden ', 'SE'],
  ])('%s → %s', (name, code) => {
    expect(countryCode(name)).toBe(code);
  });

  it.each([
    // No ISO 3166-1 code the platform accepts.
    'Kosovo',
    // Two countries.
    'Congo',
    'Atlantis',
    'xx',
    '',
  ])('cannot place %j', (name) => {
    expect(countryCode(name)).toBeUndefined();
  });

  it('answers a text it placed before, or could not, the same way again', () => {
    // Each text is placed once and remembered (thousands of rows name a few countries).
    for (let round = 0; round < 3; round++) {
      expect(countryCode('Viet Nam')).toBe('VN');
      expect(countryCode('Congo')).toBeUndefined();
      expect(countryCode(' viet nam ')).toBe('VN');
    }
    // Past its bound the memory starts again, and answers stay right.
    for (let i = 0; i < 10_050; i++) countryCode(`Nowhere ${i}`);
    expect(countryCode('Viet Nam')).toBe('VN');
  });
});
