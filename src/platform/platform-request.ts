import type { FlatParams } from '../model/params.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One platform call before signing: what the layers below the typed client pass around. */
export interface PlatformRequest {
  method: HttpMethod;
  /** Relative to the base URL, starting with `/`, e.g. `/user/member/12`. */
  path: string;
  /** GET params (signed as GET). `format=json` is added unless a format is given. */
  query?: FlatParams;
  /** Body params of POST, PUT and DELETE, form-encoded and signed as POST params. */
  body?: FlatParams;
  /**
   * Whether sending it twice is harmless. Decides if a lost answer may be retried blindly.
   * @defaultValue true for GET, PUT and DELETE; false for POST
   */
  idempotent?: boolean;
  /**
   * Nothing identifies it afterwards (a check-in), so it must not be done twice: only
   * failures that say it was not done (429, 503, unreachable) are retried, and any other
   * server error, which may come after the platform recorded it, is an unknown outcome.
   * @defaultValue false
   */
  unrepeatable?: boolean;
}

/** What came back, before any parsing. */
export interface PlatformResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: string;
}

/** A layer's view of the one below it. */
export type SendRequest = (request: PlatformRequest) => Promise<PlatformResponse>;

export function isIdempotent(request: PlatformRequest): boolean {
  return request.idempotent ?? request.method !== 'POST';
}

/** `METHOD /path` for messages and logs: never the query, which carries `sig`. */
export function callSiteOf(request: PlatformRequest): { method: string; path: string } {
  return { method: request.method, path: request.path };
}
