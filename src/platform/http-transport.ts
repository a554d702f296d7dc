import type { IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import type { Agent, Dispatcher } from 'undici';
import { ConfigError } from '../errors/evsync-error.js';
import { OnePerTurn } from './one-per-turn.js';
import type { HttpRequest } from './request-builder.js';
import type { PlatformCallSite } from './platform-error.js';
import {
  OutcomeUnknownError,
  PlatformClientClosedError,
  PlatformUnreachableError,
} from './platform-error.js';
import type { PlatformResponse } from './platform-request.js';

export interface HttpTransportOptions {
  /**
   * Time allowed to open a connection; the request was not sent when it runs out.
   * @defaultValue 10000
   */
  connectTimeoutMs?: number;
  /**
   * Time allowed from sending to the response headers.
   * @defaultValue 30000
   */
  headersTimeoutMs?: number;
  /**
   * Longest silence while reading the body.
   * @defaultValue 30000
   */
  bodyTimeoutMs?: number;
  /**
   * How long an idle connection is kept for reuse (a server's `Keep-Alive: timeout` hint may shorten it).
   * @defaultValue 4000
   */
  keepAliveTimeoutMs?: number;
  /**
   * Open connections per origin at most.
   * @defaultValue 16, or the rate limiter's concurrency when that is higher (PlatformClient)
   */
  connections?: number;
}

/**
 * Errors raised before a byte of the request left: the platform cannot have acted. Every
 * other transport failure (reset, closed socket, header or body timeout) may come after
 * the platform applied the request, so it is an unknown outcome.
 */
const NOT_SENT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
]);

/** The HTTP layer: one keep-alive undici Agent per transport, timeouts, failure classification. */
export class HttpTransport {
  private agent: Agent | undefined;
  private readonly agentOptions: Agent.Options;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly turns = new OnePerTurn();
  private closed = false;

  constructor(baseUrl: string, options: HttpTransportOptions = {}) {
    const url = parseBaseUrl(baseUrl);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.agentOptions = {
      connect: { timeout: options.connectTimeoutMs ?? 10_000 },
      headersTimeout: options.headersTimeoutMs ?? 30_000,
      bodyTimeout: options.bodyTimeoutMs ?? 30_000,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
      connections: options.connections ?? 16,
    };
  }

  /**
   * The agent, made by the first call. Lazy: a run with nothing to send makes no call, and
   * loading undici took about 85 ms of every start. Required rather than imported so that
   * `send` dispatches without an extra await; undici is CommonJS only, so this is the very
   * module an `import` would give.
   */
  private dispatcher(): Agent {
    if (this.agent === undefined) {
      const undici = createRequire(import.meta.url)('undici') as { Agent: typeof Agent };
      this.agent = new undici.Agent(this.agentOptions);
    }
    return this.agent;
  }

  /**
   * One request and its whole answer. Dispatched with undici's handler API rather than
   * `request()`, which wraps each answer in a stream and an async resource: at hundreds of
   * calls a second that wrapping was a good part of the client's time per call.
   */
  send(http: HttpRequest, site: PlatformCallSite): Promise<PlatformResponse> {
    if (this.closed) return Promise.reject(new PlatformClientClosedError(site));
    return new Promise<PlatformResponse>((resolve, reject) => {
      const agent = this.dispatcher();
      let status: number | undefined;
      let headers: IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      const handler: Dispatcher.DispatchHandler = {
        // Its presence tells undici that this handler speaks the current API.
        onRequestStart: () => undefined,
        onResponseStart: (_controller, statusCode, responseHeaders) => {
          // A 1xx is followed by the real answer: keep only the last one.
          status = statusCode;
          headers = responseHeaders;
          chunks.length = 0;
        },
        onResponseData: (_controller, chunk) => void chunks.push(chunk),
        // The answer is handed back on its turn (one-per-turn.ts), by the gate itself: no
        // promise and no await of its own for each call.
        onResponseEnd: () =>
          this.turns.pass(() =>
            resolve({ status: status ?? 0, headers: flattenHeaders(headers), body: decodeUtf8(chunks) }),
          ),
        onResponseError: (_controller, error) => reject(classifyTransportError(error, site, status)),
      };
      try {
        agent.dispatch(
          {
            origin: this.origin,
            path: `${this.basePath}${http.target}`,
            method: http.method,
            headers: http.headers,
            body: http.body ?? null,
          },
          handler,
        );
      } catch (error) {
        reject(classifyTransportError(error, site, status));
      }
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.agent?.close();
  }
}

function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (error) {
    throw new ConfigError(
      `the platform base URL "${baseUrl}" is not a URL; use e.g. https://myconf.example.com`,
      {
        cause: error,
      },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`the platform base URL must be http(s), got ${url.protocol}`);
  }
  if (url.search !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigError('the platform base URL takes no query and no credentials: the key signs each call');
  }
  return url;
}

/** Maps an undici or socket error to a typed platform error, by code (never by message). */
export function classifyTransportError(
  error: unknown,
  site: PlatformCallSite,
  status?: number,
): PlatformUnreachableError | OutcomeUnknownError {
  const code = errorCode(error);
  if (status === undefined && code !== undefined && NOT_SENT_CODES.has(code)) {
    return new PlatformUnreachableError(site, code, error);
  }
  const reason = code ?? (error instanceof Error ? error.name : 'unknown failure');
  return new OutcomeUnknownError(site, status === undefined ? reason : `${reason} after status ${status}`, {
    ...(status === undefined ? {} : { status }),
    cause: error,
  });
}

function errorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string | undefined> {
  const flat: Record<string, string | undefined> = {};
  for (const name in headers) {
    const value = headers[name];
    flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** UTF-8 text of the body, without a byte order mark (as `fetch`'s `text()` reads it). */
function decodeUtf8(chunks: Buffer[]): string {
  const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  const bom = body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
  return body.toString('utf8', bom ? 3 : 0);
}
