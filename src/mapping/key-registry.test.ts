import { describe, expect, it } from 'vitest';
import { lowerCase } from '../model/person.js';
import { KeyRegistry, keyHash, prefixedKeyHash, prefixedLowerCaseHash, taggedHash } from './key-registry.js';

describe('KeyRegistry', () => {
  it('remembers the first row of each key across growth', () => {
    const registry = new KeyRegistry();
    for (let row = 1; row <= 50_000; row++) expect(registry.add(`u-${row}`, row)).toBeUndefined();
    expect(registry.size).toBe(50_000);
    expect(registry.add('u-17', 60_000)).toBe(17);
    expect(registry.firstRow('u-49999')).toBe(49_999);
    expect(registry.firstRow('u-50001')).toBeUndefined();
  });

  it('tells apart keys that differ only slightly', () => {
    const registry = new KeyRegistry();
    registry.add('user\u0000ab', 1);
    expect(registry.firstRow('user\u0000ba')).toBeUndefined();
    expect(registry.firstRow('user\u0000ab ')).toBeUndefined();
    expect(keyHash('a')).not.toEqual(keyHash('b'));
  });

  it('hashes a prefix and a key as their concatenation', () => {
    for (const [prefix, key] of [
      ['', ''],
      ['user\u0000', 'u-1'],
      ['0\u0000', 'zoë@example.org'],
      ['ab', 'c'],
    ] as const) {
      expect(prefixedKeyHash(prefix, key)).toEqual(keyHash(prefix + key));
    }
    expect(prefixedKeyHash('a', 'bc')).not.toEqual(prefixedKeyHash('ab', 'cd'));
  });

  it('hashes a lower-cased key as the hash of lowerCase(key), the Kelvin sign kept apart', () => {
    for (const key of ['', 'Bob@X.org', 'bob@x.org', 'ÉLODIE@x.org', '\u212Aate@x.org', '𠮷@x.org']) {
      expect(prefixedLowerCaseHash('0\u0000', key)).toEqual(prefixedKeyHash('0\u0000', lowerCase(key)));
    }
    expect(prefixedLowerCaseHash('', '\u212Aate@x.org')).not.toEqual(prefixedLowerCaseHash('', 'kate@x.org'));
  });

  it('tags a hash apart from the hash itself and from other tags', () => {
    const hash = keyHash('bob@x.org');
    expect(taggedHash(hash, 1)).not.toEqual(hash);
    expect(taggedHash(hash, 1)).not.toEqual(taggedHash(hash, 2));
    expect(taggedHash(hash, 1)).toEqual(taggedHash(keyHash('bob@x.org'), 1));
  });

  it('stores rows as given (row 0 is kept as 1, never as an empty slot)', () => {
    const registry = new KeyRegistry();
    registry.add('x', 0);
    expect(registry.firstRow('x')).toBe(1);
  });
});
