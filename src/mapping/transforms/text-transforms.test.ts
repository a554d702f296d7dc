import { describe, expect, it } from 'vitest';
import {
  collapseSpaces,
  phoneDigits,
  splitFullName,
  stripExcelGuards,
  toCountryCode,
} from './text-transforms.js';

describe('text transforms', () => {
  it.each([
    ['="00123"', '00123'],
    ['="say ""hi"""', 'say "hi"'],
    ["'+49 30 1234", '+49 30 1234'],
    ["'=SUM(A1)", '=SUM(A1)'],
    ["''quoted", "'quoted"],
    ['plain', 'plain'],
    ['=1+1', '=1+1'],
  ])('strip_excel %s → %s', (input, expected) => {
    expect(stripExcelGuards(input)).toBe(expected);
  });

  it('collapses every kind of space', () => {
    expect(collapseSpaces(' Ada \t\u00a0 Lovelace\n')).toBe('Ada Lovelace');
  });

  it.each([
    ['Ada Lovelace', 'Ada', 'Lovelace'],
    ['Lovelace, Ada', 'Ada', 'Lovelace'],
    ['Ludwig van Beethoven', 'Ludwig', 'van Beethoven'],
    ['Mary Ann  Evans', 'Mary Ann', 'Evans'],
    ['Cher', 'Cher', ''],
    ['', '', ''],
  ])('splits %s', (full, first, last) => {
    expect(splitFullName(full)).toEqual({ first, last });
  });

  it.each([
    ['de', 'DE'],
    ['UK', 'GB'],
    ['United States', 'US'],
    ['USA', 'US'],
    ['Deutschland', 'DE'],
    ['  switzerland ', 'CH'],
    ['United Kingdom', 'GB'],
    ['Atlantis', 'Atlantis'],
  ])('country_code %s → %s', (input, expected) => {
    expect(toCountryCode(input)).toBe(expected);
  });

  it.each([
    ['+49 (30) 1234-56', '+4930123456'],
    ['(512) 555-0100 x12', '5125550100x12'],
    ['0049.30.1234', '0049301234'],
  ])('digits_and_plus %s → %s', (input, expected) => {
    expect(phoneDigits(input)).toBe(expected);
  });
});
