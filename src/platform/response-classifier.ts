import type { ParamErrors, PlatformCallSite } from './platform-error.js';
import { PlatformHttpError, RateLimitedError } from './platform-error.js';
import type { PlatformResponse } from './platform-request.js';
import { errorBodySchema } from './response-schemas.js';

/** 2xx passes; anything else becomes the typed error that says what the platform meant. */
export function classifyResponse(
  response: PlatformResponse,
  site: PlatformCallSite,
  now: () => number = Date.now,
): PlatformResponse {
  if (response.status >= 200 && response.status < 300) return response;
  const { platformMessage, paramErrors } = readErrorBody(response.body);
  if (response.status === 429) {
    return throwing(
      new RateLimitedError(site, parseRetryAfter(response.headers['retry-after'], now), platformMessage),
    );
  }
  const redirect =
    response.status >= 300 && response.status < 400 ? redirectTarget(response.headers.location) : undefined;
  const message = redirect === undefined ? platformMessage : `redirected to ${redirect}`;
  return throwing(
    new PlatformHttpError(site, response.status, {
      ...(message === undefined ? {} : { platformMessage: message }),
      paramErrors,
    }),
  );
}

/** Origin and path of a `Location`; its query may echo ours, `sig` included. */
function redirectTarget(location: string | undefined): string | undefined {
  if (!location) return undefined;
  try {
    const url = new URL(location, 'http://relative.invalid');
    return url.origin === 'http://relative.invalid' ? url.pathname : `${url.origin}${url.pathname}`;
  } catch {
    return undefined;
  }
}

function throwing(error: Error): never {
  throw error;
}

/** `{"error": text, "errors": {param: [text]}}`; an HTML or empty body gives no message. */
export function readErrorBody(body: string): {
  platformMessage: string | undefined;
  paramErrors: ParamErrors;
} {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { platformMessage: undefined, paramErrors: {} };
  }
  const parsed = errorBodySchema.safeParse(json);
  if (!parsed.success) return { platformMessage: undefined, paramErrors: {} };
  const raw = parsed.data.errors;
  const paramErrors: ParamErrors = {};
  if (Array.isArray(raw)) {
    if (raw.length > 0) paramErrors.base = raw;
  } else if (raw) {
    for (const [param, messages] of Object.entries(raw)) {
      paramErrors[param] = Array.isArray(messages) ? messages : [messages];
    }
  }
  const message = parsed.data.error ?? parsed.data.message;
  return { platformMessage: message?.slice(0, 500), paramErrors };
}

/**
 * `Retry-After` as delay-seconds or an HTTP date, in milliseconds; `undefined` when
 * absent or unreadable (the retry layer then uses its own backoff).
 */
export function parseRetryAfter(value: string | undefined, now: () => number = Date.now): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now());
}
