import { request } from 'undici';
import { encodeForm } from '../../src/platform/params.js';
import type { FlatParams } from '../../src/model/params.js';
import { signRequest } from '../../src/platform/signing.js';

export interface SignedTarget {
  url: string;
  keyId: number | string;
  signingKey: string;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON (throws when it is not). */
  json: <T = unknown>() => T;
}

export interface SignedCallOptions {
  query?: FlatParams;
  body?: FlatParams;
  /** Sign with this key instead of the target's (to provoke a 401). */
  signingKey?: string;
  headers?: Record<string, string>;
}

/**
 * One request signed as spec §5 says, sent with undici: the smallest possible client, for
 * tests that must see the sandbox's raw answers (status, headers, body text).
 */
export async function signedCall(
  target: SignedTarget,
  method: string,
  path: string,
  options: SignedCallOptions = {},
): Promise<RawAnswer> {
  const signed = signRequest({
    keyId: target.keyId,
    signingKey: options.signingKey ?? target.signingKey,
    query: options.query ?? {},
    ...(options.body ? { body: options.body } : {}),
  });
  return rawCall(target.url, method, `${path}?${encodeForm(signed.query)}`, {
    ...(options.body ? { body: encodeForm(options.body) } : {}),
    headers: {
      ...(options.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      ...options.headers,
    },
  });
}

/** A request exactly as given: path with its raw query, body text, headers. */
export async function rawCall(
  baseUrl: string,
  method: string,
  pathAndQuery: string,
  options: { body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<RawAnswer> {
  const answer = await request(`${baseUrl}${pathAndQuery}`, {
    method: method as 'GET',
    ...(options.body === undefined ? {} : { body: options.body }),
    headers: options.headers ?? {},
  });
  const text = await answer.body.text();
  return {
    status: answer.statusCode,
    headers: answer.headers,
    text,
    json: <T>() => JSON.parse(text) as T,
  };
}

/** Signs `query` + `body` by hand and returns the raw query string (for hand-built requests). */
export function signedQueryString(target: SignedTarget, query: FlatParams, body: FlatParams = {}): string {
  return encodeForm(signRequest({ keyId: target.keyId, signingKey: target.signingKey, query, body }).query);
}
