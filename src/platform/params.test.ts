import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeForm,
  encodeForm,
  flattenParams,
  FormDecodeError,
  indexedList,
  paramPath,
  unflattenParams,
} from './params.js';

describe('bracketed params', () => {
  it('flattens nested objects and arrays into bracketed names', () => {
    expect(
      flattenParams({
        user: {
          first_name: 'Ada',
          account_attributes: { addresses_attributes: [{ city: 'London', street2: null }] },
          membership: undefined,
        },
        event_client_ids: ['a', 'b', 'c'],
        max: 3,
        flag: false,
      }),
    ).toEqual({
      'user[first_name]': 'Ada',
      'user[account_attributes][addresses_attributes][0][city]': 'London',
      'event_client_ids[0]': 'a',
      'event_client_ids[1]': 'b',
      'event_client_ids[2]': 'c',
      max: '3',
      flag: 'false',
    });
  });

  it('splits names into path segments and leaves malformed names whole', () => {
    expect(paramPath('a[b][0][c]')).toEqual(['a', 'b', '0', 'c']);
    expect(paramPath('plain')).toEqual(['plain']);
    expect(paramPath('a[b')).toEqual(['a[b']);
    expect(paramPath('a[b]x')).toEqual(['a[b]x']);
  });

  it('unflattens to nested hashes, readable in index order', () => {
    const nested = unflattenParams({ 'e[10]': 'k', 'e[2]': 'c', 'e[0]': 'a', 'user[first_name]': 'Ada' });
    expect(nested.user).toEqual({ first_name: 'Ada' });
    expect(indexedList(nested.e)).toEqual(['a', 'c', 'k']);
  });
});

describe('form encoding', () => {
  const tricky = {
    'user[first_name]': 'A+b & c=d 100%',
    'user[item_attributes][article_attributes][content]': '<p>one</p>\r\n<p>two</p>',
    'user[last_name]': 'Zoë 李 😀',
    'event_client_ids[0]': '',
    "o'brien": "(it's)*!",
  };

  it('percent-encodes every reserved byte, brackets included', () => {
    const encoded = encodeForm({ 'a[b]': 'x+y&z=1%\n' });
    expect(encoded).toBe('a%5Bb%5D=x%2By%26z%3D1%25%0A');
    expect(encodeForm({ q: "(it's)*!" })).toBe('q=%28it%27s%29%2A%21');
  });

  it("encodes as encodeURIComponent does, with !'()* encoded too (property)", () => {
    const reference = (text: string): string =>
      encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ unit: 'grapheme' }), (key, value) => {
        expect(encodeForm({ [key]: value })).toBe(`${reference(key)}=${reference(value)}`);
      }),
      { numRuns: 500 },
    );
    const ascii = String.fromCharCode(...Array.from({ length: 128 }, (_, code) => code));
    expect(encodeForm({ [ascii]: ascii })).toBe(`${reference(ascii)}=${reference(ascii)}`);
  });

  it('round-trips + & = % newlines, blanks and non-ASCII text', () => {
    expect(decodeForm(encodeForm(tricky))).toEqual(tricky);
  });

  it('round-trips any params (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }), fc.string({ unit: 'grapheme' })), (params) => {
        expect(decodeForm(encodeForm(params))).toEqual(params);
      }),
      { numRuns: 300 },
    );
  });

  it('reads + as a space and refuses broken escapes', () => {
    expect(decodeForm('a=b+c&d')).toEqual({ a: 'b c', d: '' });
    expect(() => decodeForm('a=%E0%A4%A')).toThrow(FormDecodeError);
  });
});

describe('hostile param names', () => {
  it('keeps __proto__ as a plain param and never touches Object.prototype', () => {
    expect(decodeForm('__proto__=x&a=1')).toEqual(
      Object.fromEntries([
        ['__proto__', 'x'],
        ['a', '1'],
      ]),
    );
    const nested = unflattenParams({ 'user[__proto__][polluted]': 'yes', '__proto__[polluted]': 'yes' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(nested)).toEqual(['user', '__proto__']);
    expect(flattenParams(nested)).toEqual(
      Object.fromEntries([
        ['user[__proto__][polluted]', 'yes'],
        ['__proto__[polluted]', 'yes'],
      ]),
    );
  });
});
