import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ColumnBinder } from './column-binder.js';
import { compileTransform, ValueProblem } from './compile-transform.js';
import { LookupDefaults } from './lookup-defaults.js';

describe('split', () => {
  it('gives the trimmed, non-empty parts that String#split gives, for any text and separator', () => {
    const binder = new ColumnBinder([]);
    const reference = (text: string, separator: string): string[] =>
      text
        .split(separator)
        .map((part) => part.trim())
        .filter((part) => part !== '');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 20 }),
          fc
            .array(fc.constantFrom('a', ' ', ',', ';', 'b'), { maxLength: 12 })
            .map((parts) => parts.join('')),
        ),
        fc.constantFrom(',', ';', ', ', '||', ' ', 'ab'),
        (text, separator) => {
          const split = compileTransform({ split: separator }, binder);
          expect(split(text, {})).toEqual(reference(text, separator));
          expect(split([text, text], {})).toEqual([
            ...reference(text, separator),
            ...reference(text, separator),
          ]);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('case and space transforms', () => {
  const binder = new ColumnBinder([]);
  it.each([
    ['lower', 'ÄDA Lovelace', 'äda lovelace'],
    ['upper', 'straße de', 'STRASSE DE'],
    ['trim', '  Ada  ', 'Ada'],
  ] as const)('%s: %j → %j, each element of a list alike', (name, input, expected) => {
    const transform = compileTransform(name, binder);
    expect(transform(input, {})).toBe(expected);
    expect(transform([input, input], {})).toEqual([expected, expected]);
  });
});

describe('lookup', () => {
  const binder = new ColumnBinder([]);
  const table = {
    Speaker: 'speaker',
    'Speaker Ticket': 'speaker',
    Press: 'press',
    'Day – Late': 'exhibitor',
  };

  it('looks a value not in the table up by its text before `before`, cut at the last one first', () => {
    const lookup = compileTransform({ lookup: { table, default: 'member', before: ' – ' } }, binder);
    // pretix's check-in list: `str(item) + " – " + variation`.
    expect(lookup('Speaker Ticket – Two days', {})).toBe('speaker');
    expect(lookup('press – Online', {})).toBe('press');
    // The whole value first, then the longest product part.
    expect(lookup('Day – Late', {})).toBe('exhibitor');
    expect(lookup('Day – Late – Online', {})).toBe('exhibitor');
    expect(lookup('Speaker – Ticket – Two days', {})).toBe('speaker');
    // A hyphen is no en dash, and the part must be before a separator.
    expect(lookup('Speaker - Two days', {})).toBe('member');
    expect(lookup(' – Speaker', {})).toBe('member');
    // Without `before`, whole values only, as before.
    const whole = compileTransform({ lookup: { table } }, binder);
    expect(whole('Speaker Ticket – Two days', {})).toBeInstanceOf(ValueProblem);
  });

  it('names the values it gave its default to, once, with their rows', () => {
    const defaults = new LookupDefaults();
    const lookup = compileTransform({ lookup: { table, default: 'member', before: ' – ' } }, binder, {
      defaults,
      where: 'Product',
    });
    for (const value of ['Regular', 'Speaker – Online', 'Regular', 'Workshop', '']) lookup(value, {});
    expect(defaults.notes()).toEqual([
      `Product: 3 rows have values not in the mapping's lookup table, given its default "member": "Regular" (2 rows), "Workshop" (1 row). Add to the table each value that means something else`,
    ]);
    expect(new LookupDefaults().notes()).toEqual([]);
  });
});

describe('digits_and_plus', () => {
  const transform = compileTransform('digits_and_plus', new ColumnBinder([]));
  it('keeps digits, a leading + and an extension, and drops the trunk (0) after a country code', () => {
    expect(transform('+49 (0) 30 1234-5678 ext. 12', {})).toBe('+493012345678x12');
    expect(transform('', {})).toBe('');
  });

  it('makes letters, and a number Excel rounded, a problem of the field, never a shorter number', () => {
    expect(transform('+1-800-FLOWERS', {})).toEqual(
      new ValueProblem(
        '"+1-800-FLOWERS" is not a phone number: it has letters, or no digits (write the number in digits, an extension as x12)',
        'MAPPING_NOT_A_PHONE',
      ),
    );
    expect(transform('4.91761E+11', {})).toMatchObject({ code: 'MAPPING_EXCEL_NUMBER' });
    expect(transform(['+49 30 1', 'call me'], {})).toMatchObject({ code: 'MAPPING_NOT_A_PHONE' });
  });
});
