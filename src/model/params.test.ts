import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortNames } from './params.js';

describe('sortNames', () => {
  it('orders names as the native sort does, short lists and long', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' }), { maxLength: 40 }), (names) => {
        expect(sortNames([...names])).toEqual([...names].sort());
      }),
    );
  });

  it('sorts in place', () => {
    const names = ['user[last_name]', 'client_id', 'user[first_name]'];
    expect(sortNames(names)).toBe(names);
    expect(names).toEqual(['client_id', 'user[first_name]', 'user[last_name]']);
  });

  it('orders lists met before as the native sort does, however they come again', () => {
    // Few distinct lists of many names, asked again and again in any order, some only
    // one name apart: each answer must be that list's own order, not a recent one's.
    const base = Array.from({ length: 12 }, (_, i) => `user[field_${(i * 7) % 12}]`);
    const lists = [
      base,
      [...base].reverse(),
      base.map((name, i) => (i === 5 ? 'user[zzz]' : name)),
      base.map((name, i) => (i === 0 ? 'a' : name)),
      [...base, 'client_id'],
      base.slice(0, 8),
    ];
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: lists.length - 1 }), { minLength: 1, maxLength: 30 }),
        (picks) => {
          for (const pick of picks) {
            const names = [...lists[pick]!];
            const sorted = sortNames(names);
            expect(sorted).toBe(names);
            expect(sorted).toEqual([...lists[pick]!].sort());
            // The caller may reorder its list: what is remembered stays the list's order.
            names.reverse();
          }
        },
      ),
    );
  });
});
