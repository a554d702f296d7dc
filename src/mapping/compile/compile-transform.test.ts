import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ColumnBinder } from './column-binder.js';
import { compileTransform } from './compile-transform.js';

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
