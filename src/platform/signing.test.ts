import { describe, expect, it } from 'vitest';
import { md5Hex, signRequest, signingStringOf } from './signing.js';

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
});
