import { hash } from 'node:crypto';
import { sortNames, type FlatParams } from '../model/params.js';
import { boundedMemo } from '../model/bounded-memo.js';

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
  // is the start of another name whose next character sorts before `=` (`a` before `a1`,
  // but `a=…` after `a1=…`; `email` before `email_confirmation` either way): those take the
  // exact path. The names a name starts follow it once sorted, the one with the smallest
  // next character first.
  sortNames(keys);
  let joined = '';
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    const next = keys[i + 1];
    if (isOddName(key) || (next?.startsWith(key) === true && next.charCodeAt(key.length) < EQUALS)) {
      return exactPairs(params);
    }
    joined += `${key}=${params[key]}`;
  }
  return joined;
}

const EQUALS = 0x3d;
const ODD_NAME = /[=\uD800-\uDFFF]/;

/**
 * Names repeat on every call of a kind: each is tested once. Bounded, since a name can come
 * from a mapping file's custom fields.
 */
const isOddName = boundedMemo((name: string) => ODD_NAME.test(name), 2_000);

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
  // One copy of the query, completed in place: a rest pattern and two spreads cost a third
  // of the signing itself (docs/sync-engine.md, "CPU per call").
  const query = withoutSignature(input.query);
  query.key_id = String(input.keyId);
  const signingString = signingStringOf(query, input.body ?? {}, input.signingKey);
  const sig = md5Hex(signingString);
  query.sig = sig;
  return { query, signingString, sig };
}

/** An own property even for `__proto__`, as a spread makes it. */
function setParam(params: FlatParams, name: string, value: string): void {
  if (name === '__proto__') {
    Object.defineProperty(params, name, { value, enumerable: true, writable: true, configurable: true });
  } else {
    params[name] = value;
  }
}

/** A copy without the `sig` param: it is never part of the signed string. Built in a loop. */
export function withoutSignature(params: FlatParams): FlatParams {
  const rest: FlatParams = {};
  for (const name in params) {
    if (name !== 'sig' && Object.hasOwn(params, name)) setParam(rest, name, params[name]!);
  }
  return rest;
}

/** The signing string with the key replaced, for showing to a person. */
export function maskSigningKey(signingString: string, signingKey: string): string {
  if (signingKey === '' || !signingString.endsWith(signingKey)) return signingString;
  return `${signingString.slice(0, signingString.length - signingKey.length)}<signing key>`;
}
