import { describe, expect, it } from 'vitest';
import { storableJson, storableText } from './storable-json.js';

describe('storableJson', () => {
  it('leaves ordinary text, paired surrogates and a typed backslash-u alone', () => {
    const value = { a: 'Müller 日本 😀', b: 'a literal \\u0000 typed in a cell' };
    expect(storableJson(value)).toBe(JSON.stringify(value));
  });

  it('replaces NUL and lone surrogates anywhere in nested values', () => {
    const value = [{ params: { bio: 'a\u0000b' }, message: 'x\ud800y', tail: 'z\udc00' }];
    const parsed = JSON.parse(storableJson(value)) as typeof value;
    expect(parsed[0]).toEqual({ params: { bio: 'a\uFFFDb' }, message: 'x\uFFFDy', tail: 'z\uFFFD' });
  });

  it('keeps a surrogate pair whole', () => {
    expect(storableText('\ud83d\ude00\ud83d')).toBe('\ud83d\ude00\uFFFD');
  });
});
