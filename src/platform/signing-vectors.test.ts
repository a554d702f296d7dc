import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FlatParams } from '../model/params.js';
import {
  compareCodePoints,
  maskSigningKey,
  signRequest,
  signingStringOf,
  withoutSignature,
} from './signing.js';

/**
 * Vectors worked out by hand from spec §5 (the strings below were written out on paper,
 * and their MD5 computed with a separate tool, not with this code).
 */
const keyId = 12;
const signingKey = 'sekret';

const vectors: Array<{ name: string; query: FlatParams; body: FlatParams; string: string; sig: string }> = [
  {
    name: 'bracketed names, GET before POST, each sorted',
    query: { format: 'json' },
    body: {
      'user[svc_auth_attributes][email]': 'ada@example.com',
      'user[last_name]': 'Lovelace',
      'user[first_name]': 'Ada',
    },
    string:
      'format=jsonkey_id=12user[first_name]=Adauser[last_name]=Lovelaceuser[svc_auth_attributes][email]=ada@example.comsekret',
    sig: '36750296ec915baf02c6d029f19dda17',
  },
  {
    name: 'blank values are left out on both sides',
    query: { terms: '', user_page: '2' },
    body: { 'user[salutation]': '', client_id: 'c-1' },
    string: 'key_id=12user_page=2client_id=c-1sekret',
    sig: 'f1bebd5140c36eb46fec03a4f4fb7130',
  },
  {
    name: 'non-ASCII text is hashed as UTF-8, unencoded',
    query: {},
    body: { 'user[last_name]': '李', 'user[first_name]': 'Zoë' },
    string: 'key_id=12user[first_name]=Zoëuser[last_name]=李sekret',
    sig: '1747f3dbc5dc5998b9487702f2661c20',
  },
  {
    name: '+ & = % and spaces stay literal',
    query: {},
    body: { 'user[item_attributes][tags_list]': 'a+b & c=d 100%' },
    string: 'key_id=12user[item_attributes][tags_list]=a+b & c=d 100%sekret',
    sig: '398bc706c3a33d62790ed096b51dc734',
  },
  {
    name: 'newlines stay literal',
    query: {},
    body: { 'user[item_attributes][article_attributes][content]': '<p>one</p>\n<p>two</p>' },
    string: 'key_id=12user[item_attributes][article_attributes][content]=<p>one</p>\n<p>two</p>sekret',
    sig: '89f31b0b7a45bd99c88edce443574515',
  },
  {
    name: 'plain string order: [10] sorts before [2]; a GET "zeta" still comes before a POST "alpha"',
    query: { zeta: '1' },
    body: {
      'event_client_ids[2]': 'c',
      'event_client_ids[0]': 'a',
      alpha: '1',
      'event_client_ids[10]': 'k',
    },
    string: 'key_id=12zeta=1alpha=1event_client_ids[0]=aevent_client_ids[10]=kevent_client_ids[2]=csekret',
    sig: '8ddbbaca81ad59e8820b90a6806cfa50',
  },
];

describe('signing vectors derived from spec §5', () => {
  it.each(vectors)('$name', ({ query, body, string, sig }) => {
    const signed = signRequest({ keyId, signingKey, query, body });
    expect(signed.signingString).toBe(string);
    expect(signed.sig).toBe(sig);
    expect(signed.query.sig).toBe(sig);
    expect(signed.query.key_id).toBe('12');
  });

  it('ignores a sig already among the GET params and replaces it', () => {
    const fresh = signRequest({ keyId, signingKey, query: { format: 'json' } });
    const again = signRequest({ keyId, signingKey, query: { format: 'json', sig: 'stale' } });
    expect(again.signingString).toBe(fresh.signingString);
    expect(again.query.sig).toBe(fresh.sig);
    expect(withoutSignature({ sig: 'x', a: 'b' })).toEqual({ a: 'b' });
  });

  it('a key_id passed in the query is replaced by the real one', () => {
    const signed = signRequest({ keyId, signingKey, query: { key_id: '999' } });
    expect(signed.signingString).toBe('key_id=12sekret');
  });

  it('the same param as GET or as POST gives different signatures', () => {
    const asGet = signRequest({ keyId, signingKey, query: { a: '1', z: '1' } });
    const split = signRequest({ keyId, signingKey, query: { z: '1' }, body: { a: '1' } });
    expect(asGet.signingString).toBe('a=1key_id=12z=1sekret');
    expect(split.signingString).toBe('key_id=12z=1a=1sekret');
    expect(asGet.sig).not.toBe(split.sig);
  });

  it('masks the signing key for display', () => {
    expect(maskSigningKey('key_id=12sekret', 'sekret')).toBe('key_id=12<signing key>');
    expect(maskSigningKey('key_id=12', 'sekret')).toBe('key_id=12');
  });
});

/** Characters at the edges where UTF-16 unit order and code point order part ways. */
const boundaryChar = fc.constantFrom(
  'a',
  '[',
  ']',
  '=',
  '\u007f',
  '\u0080',
  'é',
  '\u07ff',
  '\u0800',
  '李',
  '\ud7ff',
  '\ue000',
  '\ufffd',
  '\uffff',
  '\u{10000}',
  '😀',
  '\u{10ffff}',
);

describe('plain string order is UTF-8 byte order', () => {
  const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

  it('matches byte order for any strings, astral characters included (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: boundaryChar }), fc.string({ unit: boundaryChar }), (a, b) => {
        expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(byBytes(a, b)));
      }),
      { numRuns: 2000 },
    );
  });

  it('puts U+FFFD before an emoji, where UTF-16 order would not', () => {
    expect(signingStringOf({}, { 'a[😀]': '1', 'a[\uFFFD]': '1' }, '')).toBe('a[\uFFFD]=1a[😀]=1');
    expect(['😀', '\uFFFD'].sort()).toEqual(['😀', '\uFFFD']);
  });
});
