import { CODE } from '../errors/codes.js';
import { EvsyncError } from '../errors/evsync-error.js';

/**
 * Every failure of a platform call, classified once here. Callers match on `code` (stable)
 * and `retryable`, never on message text. Messages name the method and path but never the
 * query string: it carries `sig`.
 */
export const PLATFORM_ERROR_CODES = {
  badRequest: CODE.EVSYNC_PLATFORM_BAD_REQUEST,
  unauthorized: CODE.EVSYNC_PLATFORM_UNAUTHORIZED,
  forbidden: CODE.EVSYNC_PLATFORM_FORBIDDEN,
  notFound: CODE.EVSYNC_PLATFORM_NOT_FOUND,
  methodNotAllowed: CODE.EVSYNC_PLATFORM_METHOD_NOT_ALLOWED,
  notAcceptable: CODE.EVSYNC_PLATFORM_NOT_ACCEPTABLE,
  invalid: CODE.EVSYNC_PLATFORM_INVALID,
  rateLimited: CODE.EVSYNC_PLATFORM_RATE_LIMITED,
  server: CODE.EVSYNC_PLATFORM_SERVER,
  otherStatus: CODE.EVSYNC_PLATFORM_HTTP,
  unreachable: CODE.EVSYNC_PLATFORM_UNREACHABLE,
  outcomeUnknown: CODE.EVSYNC_PLATFORM_OUTCOME_UNKNOWN,
  badResponse: CODE.EVSYNC_PLATFORM_BAD_RESPONSE,
  closed: CODE.EVSYNC_PLATFORM_CLOSED,
  stale: CODE.EVSYNC_PLATFORM_WRITE_STALE,
} as const;
export type PlatformErrorCode = (typeof PLATFORM_ERROR_CODES)[keyof typeof PLATFORM_ERROR_CODES];

/** Where a failed call went: enough to find it in a log, nothing secret. */
export interface PlatformCallSite {
  method: string;
  path: string;
}

/** Validation messages per param name, as the platform gave them (`errors` of a 422). */
export type ParamErrors = Record<string, string[]>;

export abstract class PlatformError extends EvsyncError {
  override readonly name: string = 'PlatformError';
  readonly method: string;
  readonly path: string;
  /** Tries made before this error was surfaced; set by the retry layer. */
  attempts = 1;

  protected constructor(
    message: string,
    site: PlatformCallSite,
    options: { code: PlatformErrorCode; retryable: boolean; cause?: unknown },
  ) {
    super(message, options);
    this.method = site.method;
    this.path = site.path;
  }
}

const STATUS_CODES: Record<number, PlatformErrorCode> = {
  400: PLATFORM_ERROR_CODES.badRequest,
  401: PLATFORM_ERROR_CODES.unauthorized,
  403: PLATFORM_ERROR_CODES.forbidden,
  404: PLATFORM_ERROR_CODES.notFound,
  405: PLATFORM_ERROR_CODES.methodNotAllowed,
  406: PLATFORM_ERROR_CODES.notAcceptable,
  422: PLATFORM_ERROR_CODES.invalid,
  429: PLATFORM_ERROR_CODES.rateLimited,
};

const STATUS_ADVICE: Record<number, string> = {
  400: 'the request was malformed; check the params',
  401: 'the signature was refused; check EVSYNC_KEY_ID and EVSYNC_SIGNING_KEY, and compare with `evsync sign`',
  403: 'the key may not do this; a password reset of the key owner revokes its permissions',
  404: 'no such object or path; check the id or client_id and EVSYNC_BASE_URL',
  405: 'the platform does not accept this method on this path',
  406: 'the platform refused the requested format',
  422: 'the platform refused the data: correct what it names',
};

export function codeForStatus(status: number): PlatformErrorCode {
  if (status >= 500) return PLATFORM_ERROR_CODES.server;
  return STATUS_CODES[status] ?? PLATFORM_ERROR_CODES.otherStatus;
}

/** 5xx and 429 are worth another try; every other answered status is permanent. */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 429;
}

/** The platform answered with a status that is not a success. */
export class PlatformHttpError extends PlatformError {
  override readonly name: string = 'PlatformHttpError';
  readonly status: number;
  /** The platform's own message (`error` of the body), when it gave one. */
  readonly platformMessage: string | undefined;
  readonly paramErrors: ParamErrors;

  constructor(
    site: PlatformCallSite,
    status: number,
    details: { platformMessage?: string; paramErrors?: ParamErrors; cause?: unknown } = {},
  ) {
    const paramErrors = details.paramErrors ?? {};
    super(describeStatus(site, status, details.platformMessage, paramErrors), site, {
      code: codeForStatus(status),
      retryable: isRetryableStatus(status),
      cause: details.cause,
    });
    this.status = status;
    this.platformMessage = details.platformMessage;
    this.paramErrors = paramErrors;
  }
}

/** 429: the wait the platform asked for travels with the error. */
export class RateLimitedError extends PlatformHttpError {
  override readonly name = 'RateLimitedError';
  /** From `Retry-After` (seconds or an HTTP date); undefined when the platform gave none. */
  readonly retryAfterMs: number | undefined;

  constructor(site: PlatformCallSite, retryAfterMs: number | undefined, platformMessage?: string) {
    super(site, 429, platformMessage === undefined ? {} : { platformMessage });
    this.retryAfterMs = retryAfterMs;
  }
}

/** The request never reached the platform (DNS, refused, connect timeout): safe to resend. */
export class PlatformUnreachableError extends PlatformError {
  override readonly name = 'PlatformUnreachableError';
  constructor(site: PlatformCallSite, reason: string, cause?: unknown) {
    super(
      `${site.method} ${site.path}: could not reach the platform (${reason}); check EVSYNC_BASE_URL and the network`,
      site,
      { code: PLATFORM_ERROR_CODES.unreachable, retryable: true, cause },
    );
  }
}

/**
 * The request was sent but the answer never came whole (connection reset, header or body
 * timeout). The platform may or may not have applied it: a create must be reconciled
 * (look the object up) before it is sent again, or it may be created twice.
 */
export class OutcomeUnknownError extends PlatformError {
  override readonly name = 'OutcomeUnknownError';
  /** The status line, when it arrived before the body broke. */
  readonly status: number | undefined;

  constructor(site: PlatformCallSite, reason: string, options: { status?: number; cause?: unknown } = {}) {
    super(
      `${site.method} ${site.path}: the request was sent but the answer was lost (${reason}); ` +
        // A PUT, DELETE or GET does the same however often it arrives; a POST may not.
        (site.method === 'POST'
          ? 'the platform may have applied it, so look the object up before sending it again'
          : 'sending it again is safe: a second one does what the first did (`evsync retry RUN`)'),
      site,
      { code: PLATFORM_ERROR_CODES.outcomeUnknown, retryable: true, cause: options.cause },
    );
    this.status = options.status;
  }
}

/** A success status whose body is not the shape §2 describes. */
export class PlatformResponseError extends PlatformError {
  override readonly name = 'PlatformResponseError';
  readonly status: number;
  constructor(site: PlatformCallSite, status: number, problem: string, cause?: unknown) {
    super(`${site.method} ${site.path}: answered ${status} with an unexpected body: ${problem}`, site, {
      code: PLATFORM_ERROR_CODES.badResponse,
      retryable: false,
      cause,
    });
    this.status = status;
  }
}

/**
 * The client was closed (or its stop signal fired) before this call was sent: nothing
 * reached the platform, so it can be sent again by a later run.
 */
export class PlatformClientClosedError extends PlatformError {
  override readonly name = 'PlatformClientClosedError';
  constructor(site: PlatformCallSite, cause?: unknown) {
    super(`${site.method} ${site.path}: not sent, the platform client was closed or stopped`, site, {
      code: PLATFORM_ERROR_CODES.closed,
      retryable: false,
      cause,
    });
  }
}

/** A write-guard check failed before this write was sent (see `write-guard.ts`): nothing was sent. */
export class StaleWriteError extends PlatformError {
  override readonly name = 'StaleWriteError';
  constructor(site: PlatformCallSite, why: string) {
    super(`${site.method} ${site.path}: not sent, ${why}`, site, {
      code: PLATFORM_ERROR_CODES.stale,
      retryable: false,
    });
  }
}

export function isPlatformError(error: unknown): error is PlatformError {
  return error instanceof PlatformError;
}

function describeStatus(
  site: PlatformCallSite,
  status: number,
  platformMessage: string | undefined,
  paramErrors: ParamErrors,
): string {
  const said = platformMessage ? `: ${platformMessage}` : '';
  const named = Object.entries(paramErrors)
    .map(([param, messages]) => `${param} ${messages.join(', ')}`)
    .join('; ');
  // A platform whose message is its per-param errors already (the sandbox's is) says them once.
  const params = platformMessage?.includes(named) ? '' : named;
  const advice =
    status >= 300 && status < 400
      ? 'the platform redirected; check EVSYNC_BASE_URL (https, the conference host) — evsync does not follow redirects'
      : status === 429
        ? 'rate limited; the client waits and retries'
        : status >= 500
          ? 'the platform failed; retried with backoff'
          : (STATUS_ADVICE[status] ?? 'unexpected status');
  return `${site.method} ${site.path} answered ${status}${said}${params ? ` (${params})` : ''} — ${advice}`;
}
