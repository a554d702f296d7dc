import { describe, expect, it } from 'vitest';
import { isBlankRow } from './is-blank-row.js';

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
});
