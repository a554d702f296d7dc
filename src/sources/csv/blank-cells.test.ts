import { describe, expect, it } from 'vitest';
import { indexOfValue, isBlankRow } from './blank-cells.js';

describe('isBlankRow', () => {
  it('is true when every cell is empty or whitespace', () => {
    expect(isBlankRow([''])).toBe(true);
    expect(isBlankRow(['', '', '', ''])).toBe(true);
    expect(isBlankRow([' ', '\t', '\u00a0', ''])).toBe(true);
  });

  it('is false when any cell holds something', () => {
    expect(isBlankRow(['u1', '', ''])).toBe(false);
    expect(isBlankRow(['', '', ' x'])).toBe(false);
    expect(isBlankRow(['', 'é'])).toBe(false);
    expect(isBlankRow(['', '\u00a0·'])).toBe(false);
  });

  it('finds the first cell holding something from a column on', () => {
    expect(indexOfValue(['a', 'b', '', ' ', 'x'], 2)).toBe(4);
    expect(indexOfValue(['a', 'b', '', ' '], 2)).toBe(-1);
    expect(indexOfValue(['a'], 1)).toBe(-1);
  });
});
