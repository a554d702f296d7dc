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
    // A title stays with the first name, a suffix with the last (Luma gives one name column).
    ['Dr. Jane Smith PhD', 'Dr. Jane', 'Smith PhD'],
    ['Martin Luther King Jr.', 'Martin Luther', 'King Jr.'],
    ['Martin Luther King, Jr.', 'Martin Luther', 'King Jr.'],
    ['Charles de Gaulle III', 'Charles', 'de Gaulle III'],
    ['King, Martin Luther', 'Martin Luther', 'King'],
    ['John II', 'John', 'II'],
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
    // The trunk (0) after a country code is not dialled from abroad.
    ['+49 (0) 30 1234-5678 ext. 12', '+493012345678x12'],
    ['+44 (0)20 7946 0958', '+442079460958'],
    ['0049 (0) 30 1234', '0049301234'],
    // Without a country code the 0 is dialled.
    ['(0) 30 1234', '0301234'],
    ['(+49) 30 1234 extension 7', '+49301234x7'],
  ])('digits_and_plus %s → %s', (input, expected) => {
    expect(phoneDigits(input)).toBe(expected);
  });

  it.each(['+1-800-FLOWERS', 'call me', '---', 'n/a', '4.91761E+11'])(
    'digits_and_plus: %j is no phone number',
    (input) => {
      expect(phoneDigits(input)).toBeUndefined();
    },
  );
});
