import type { FlatParams } from '../model/params.js';
import { encodeForm } from './params.js';
import type { HttpMethod, PlatformRequest } from './platform-request.js';
import { signRequest } from './signing.js';

export interface Credentials {
  keyId: number | string;
  signingKey: string;
}

/** A signed request, ready for the wire. `target` holds `sig`: never log it. */
export interface HttpRequest {
  method: HttpMethod;
  /** Path and query string, e.g. `/user?format=json&key_id=7&sig=…`. */
  target: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export const USER_AGENT = 'evsync/0.1.0';
const FORM_TYPE = 'application/x-www-form-urlencoded; charset=utf-8';

/**
 * Builds the wire form of a call: GET params in the query with `format=json` (a signed GET
 * param, docs/design.md, "our conventions") and `Accept: application/json`; body params of POST, PUT and
 * DELETE form-encoded and signed as POST params (§5).
 */
export function buildHttpRequest(request: PlatformRequest, credentials: Credentials): HttpRequest {
  const query: FlatParams = { format: 'json', ...request.query };
  const hasBody = request.method !== 'GET';
  const body = hasBody ? (request.body ?? {}) : {};
  if (!hasBody && request.body !== undefined && Object.keys(request.body).length > 0) {
    throw new TypeError(`${request.method} ${request.path}: a GET carries no body; put the params in query`);
  }
  const signed = signRequest({ keyId: credentials.keyId, signingKey: credentials.signingKey, query, body });
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT };
  if (hasBody) headers['content-type'] = FORM_TYPE;
  return {
    method: request.method,
    target: `${request.path}?${encodeForm(signed.query)}`,
    headers,
    body: hasBody ? encodeForm(body) : undefined,
  };
}
