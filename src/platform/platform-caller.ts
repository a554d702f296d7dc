import type { z } from 'zod';
import { PlatformResponseError } from './platform-error.js';
import type { PlatformRequest, PlatformResponse } from './platform-request.js';
import { callSiteOf } from './platform-request.js';
import { quickCheckOf } from './quick-shapes.js';

/**
 * What the endpoint groups need from the client: the full pipeline (rate limit, retry,
 * signing, HTTP, classification) and the vendor word. A non-success status is already a
 * typed error by the time `send` returns.
 */
export interface PlatformCaller {
  readonly vendor: string;
  send(request: PlatformRequest): Promise<PlatformResponse>;
}

/** A success whose body the spec does not show: the status and whatever JSON came back. */
export interface PlatformAck {
  status: number;
  body: unknown;
}

/** Parses a success body with a §2 schema; a mismatch is a typed, non-retryable error. */
export function parseBody<S extends z.ZodType>(
  request: PlatformRequest,
  response: PlatformResponse,
  schema: S,
): z.infer<S> {
  const json = readJson(request, response);
  // The common answer passes a plain check of its shape; anything else meets the schema.
  if (quickCheckOf(schema)?.(json) === true) return json as z.infer<S>;
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const where = first && first.path.length > 0 ? ` at ${first.path.join('.')}` : '';
    throw new PlatformResponseError(
      callSiteOf(request),
      response.status,
      `${first?.message ?? 'invalid'}${where}`,
      parsed.error,
    );
  }
  return parsed.data;
}

/** The body as JSON; an empty body is `null` (a user delete answers with none). */
export function readJson(request: PlatformRequest, response: PlatformResponse): unknown {
  const text = response.body.trim();
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const start = text.slice(0, 60).replace(/\s+/g, ' ');
    throw new PlatformResponseError(
      callSiteOf(request),
      response.status,
      `not JSON (starts with "${start}"); is EVSYNC_BASE_URL the API host?`,
      error,
    );
  }
}

export function ackOf(request: PlatformRequest, response: PlatformResponse): PlatformAck {
  return { status: response.status, body: readJson(request, response) };
}
