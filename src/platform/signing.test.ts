import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareCodePoints, md5Hex, signRequest, signingStringOf } from './signing.js';

describe('signing (spec §5)', () => {
  it('adds key_id, sorts GET and POST strings apart, leaves blanks out, appends the key', () => {
    const signed = signRequest({
      keyId: 7,
      signingKey: 'KEY',
      query: { format: 'json', b: '' },
      body: { 'user[last_name]': 'Lovelace', 'user[first_name]': 'Ada', 'event[track_name]': '' },
    });
    // GET: format=json, key_id=7 (sorted); POST: user[first_name]=Ada < user[last_name]=Lovelace
    expect(signed.signingString).toBe('format=jsonkey_id=7user[first_name]=Adauser[last_name]=LovelaceKEY');
    expect(signed.sig).toBe(md5Hex(signed.signingString));
    expect(signed.query).toEqual({ format: 'json', b: '', key_id: '7', sig: signed.sig });
  });

  it('uses values unencoded and sorts by code point', () => {
    expect(signingStringOf({ q: 'a+b&c=d%e\nf' }, { 'x[é]': 'ü', 'x[z]': '😀' }, 'k')).toBe(
      'q=a+b&c=d%e\nfx[z]=😀x[é]=ük',
    );
  });

  it('sorts whole `key=value` strings when a name starts another or holds `=`', () => {
    // `a=` sorts after `a1=` ('=' is 0x3D, '1' is 0x31), though `a` sorts before `a1`.
    expect(signingStringOf({}, { a: 'x', a1: 'y', ab: 'z' }, 'k')).toBe('a1=ya=xab=zk');
    expect(signingStringOf({}, { 'b=c': '1', b: '2' }, 'k')).toBe('b=2b=c=1k');
  });

  it('orders pairs as plain code point order of the whole strings (property)', () => {
    const exact = (params: Record<string, string>): string =>
      Object.entries(params)
        .filter(([, value]) => value !== '')
        .map(([key, value]) => `${key}=${value}`)
        .sort(compareCodePoints)
        .join('');
    const name = fc.string({
      unit: fc.constantFrom('a', 'b', '1', '=', '<', '>', '_', '[', ']', 'é', '😀'),
      minLength: 1,
      maxLength: 4,
    });
    fc.assert(
      fc.property(fc.dictionary(name, fc.string({ maxLength: 3 })), (params) => {
        expect(signingStringOf({}, params, '')).toBe(exact(params));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('signRequest, the query it signs', () => {
  it('keeps the query as given (a `sig` dropped, `__proto__` an own param), then key_id and sig', () => {
    const query = JSON.parse('{"format":"json","sig":"old","__proto__":"p","key_id":"1"}') as Record<
      string,
      string
    >;
    const signed = signRequest({ keyId: 7, signingKey: 'k', query });
    expect(Object.keys(signed.query)).toEqual(['format', '__proto__', 'key_id', 'sig']);
    expect(signed.query.key_id).toBe('7');
    expect(Object.getPrototypeOf(signed.query)).toBe(Object.prototype);
    expect(signed.signingString).toBe('__proto__=pformat=jsonkey_id=7k');
    expect(query.sig).toBe('old');
  });
});
