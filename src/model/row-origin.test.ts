import { describe, expect, it } from 'vitest';
import {
  freeRepeatedRowKey,
  isLookupKey,
  isRepeatedRowKey,
  repeatedRowKey,
  rowPlaceKey,
} from './row-origin.js';

describe('the keys rows are recorded under', () => {
  it('tells a repeat by its suffix, a second repeat of one row number too', () => {
    const taken = new Set([repeatedRowKey('bob', 12)]);
    const second = freeRepeatedRowKey('bob', 12, (key) => taken.has(key));
    expect(second).toBe('bob#row12.2');
    for (const key of [repeatedRowKey('bob', 12), second, 'a#b#row3.10'])
      expect([isRepeatedRowKey(key), isLookupKey(key)], key).toEqual([true, false]);
  });

  it('looks a client_id up by itself, even one that holds "#row" elsewhere', () => {
    for (const key of ['bob', 'team#rowing', 'x#row', 'x#row3a', 'x#row3.'])
      expect([isRepeatedRowKey(key), isLookupKey(key)], key).toEqual([false, true]);
    expect(isLookupKey(rowPlaceKey({ source: 'people.csv', row: 4 }))).toBe(false);
  });
});
