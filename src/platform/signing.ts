import { hash } from 'node:crypto';
import { sortNames, type FlatParams } from '../model/params.js';

/** What a signed request carries: the GET params with `key_id` and `sig` added. */
export interface SignedParams {
  query: FlatParams;
  /** The exact string that was hashed, with the signing key at its end. Never log it unmasked. */
  signingString: string;
  sig: string;
}

export interface SignInput {
  keyId: number | string;
  signingKey: string;
  /** Query (GET) params, without `key_id` and `sig`. */
  query: FlatParams;
  /** Body params of POST, PUT and DELETE: they count as POST params. */
  body?: FlatParams;
}

/** `key=value` strings of the non-blank params, unencoded, in plain (code point) order, joined. */
function sortedPairs(params: FlatParams): string {
  const keys: string[] = [];
  for (const key in params) {
    const value = params[key];
    if (value === undefined || value === '' || !Object.hasOwn(params, key)) continue;
    keys.push(key);
  }
  // Sorting the names (short, internalised strings) rather than the `key=value` strings is
  // a third of the cost. It gives the same order unless a name holds `=` or a surrogate, or
  // is the start of another name (`a` before `a1`, but `a=…` sorts after `a1=…`): those
  // take the exact path. Such a start is always next to its longer name once sorted.
  sortNames(keys);
  let joined = '';
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    if (ODD_NAME.test(key) || keys[i + 1]?.startsWith(key) === true) return exactPairs(params);
    joined += `${key}=${params[key]}`;
  }
  return joined;
}

const ODD_NAME = /[=\uD800-\uDFFF]/;

/** The pairs sorted as whole strings: what {@link sortedPairs} does for names it cannot sort alone. */
function exactPairs(params: FlatParams): string {
  const pairs: string[] = [];
  for (const key in params) {
    const value = params[key];
    if (value === undefined || value === '' || !Object.hasOwn(params, key)) continue;
    pairs.push(`${key}=${value}`);
  }
  const joined = pairs.sort().join('');
  // Without surrogates, UTF-16 unit order is code point order and the native sort was exact.
  return SURROGATE.test(joined) ? pairs.sort(compareCodePoints).join('') : joined;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Plain string ordering as the platform's (Ruby) side sorts: by UTF-8 bytes, which is code
 * point order. JavaScript's default sort compares UTF-16 units and differs only above
 * U+FFFF (surrogates sort before U+E000–U+FFFF), so the first differing units are shifted
 * into code point order; this avoids encoding every string on each comparison.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

/** The string that spec §5 hashes: sorted GET strings, sorted POST strings, the key. */
export function signingStringOf(get: FlatParams, post: FlatParams, signingKey: string): string {
  return sortedPairs(get) + sortedPairs(post) + signingKey;
}

export function md5Hex(text: string): string {
  // One-shot: a Hash object per request cost about three times as much.
  return hash('md5', text, 'hex');
}

/** Signs one request as spec §5 says: adds `key_id`, hashes, adds `sig`. */
export function signRequest(input: SignInput): SignedParams {
  const query: FlatParams = { ...withoutSignature(input.query), key_id: String(input.keyId) };
  const signingString = signingStringOf(query, input.body ?? {}, input.signingKey);
  const sig = md5Hex(signingString);
  return { query: { ...query, sig }, signingString, sig };
}

/** Drops a `sig` param: it is never part of the signed string. */
export function withoutSignature(params: FlatParams): FlatParams {
  const { sig: _sig, ...rest } = params;
  return rest;
}

/** The signing string with the key replaced, for showing to a person. */
export function maskSigningKey(signingString: string, signingKey: string): string {
  if (signingKey === '' || !signingString.endsWith(signingKey)) return signingString;
  return `${signingString.slice(0, signingString.length - signingKey.length)}<signing key>`;
}
