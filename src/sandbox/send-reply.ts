import type { ServerResponse } from 'node:http';
import type { Reply } from './sandbox-request.js';
import { SandboxHttpError } from './sandbox-http-error.js';

export function sendReply(
  response: ServerResponse,
  reply: Reply,
  headers: Record<string, string> = {},
): void {
  response.writeHead(reply.status, {
    'content-type': reply.contentType,
    'content-length': Buffer.byteLength(reply.body),
    ...headers,
  });
  response.end(reply.body);
}

/** The error body of our conventions: `{"error": …}`, with `"errors"` for 422. */
export function errorReply(error: SandboxHttpError): Reply {
  const body: Record<string, unknown> = { error: error.message };
  if (error.errors) body.errors = error.errors;
  return { status: error.status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) };
}

export function internalErrorReply(): Reply {
  return errorReply(new SandboxHttpError(500, 'Internal sandbox error (see the sandbox log).'));
}
