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
});
