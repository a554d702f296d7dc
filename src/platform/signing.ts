import { createHash } from 'node:crypto';
import type { FlatParams } from './params.js';

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

/** `key=value` strings of the non-blank params, unencoded, in plain (code point) order. */
function sortedPairs(params: FlatParams): string[] {
  return Object.entries(params)
    .filter(([, value]) => value !== '')
    .map(([key, value]) => `${key}=${value}`)
    .sort(compareCodePoints);
}

/**
 * Plain string ordering as the platform's (Ruby) side sorts: by UTF-8 bytes, which is code
 * point order. JavaScript's default sort compares UTF-16 units and differs above U+FFFF.
 */
function compareCodePoints(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The string that spec §5 hashes: sorted GET strings, sorted POST strings, the key. */
export function signingStringOf(get: FlatParams, post: FlatParams, signingKey: string): string {
  return sortedPairs(get).join('') + sortedPairs(post).join('') + signingKey;
}

export function md5Hex(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
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
