import { describe, expect, it } from 'vitest';
import { plainOf } from './kept-address.js';

describe('plainOf', () => {
  it('gives the order’s address back only for the plus-address of this very key', () => {
    expect(plainOf('anna+eb-1002@example.org', 'eb-1002')).toBe('anna@example.org');
    expect(plainOf('anna+eb-1002@example.org', 'EB 1002')).toBe('anna@example.org');
    expect(plainOf('anna+eb-1002@example.org', 'eb-1003')).toBeUndefined();
    expect(plainOf('anna@example.org', 'eb-1002')).toBeUndefined();
    // An address with a plus of its own is the organiser's, unless it is exactly this key's.
    expect(plainOf('anna+work@example.org', 'eb-1002')).toBeUndefined();
    expect(plainOf('not an address', 'k')).toBeUndefined();
  });
});
