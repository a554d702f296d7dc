import { CODE } from '../errors/codes.js';
import { EvsyncError } from '../errors/evsync-error.js';

/** Param name → messages, the `errors` member of a 422 body (docs/design.md, "our conventions"). */
export type ParamErrors = Record<string, string[]>;

/**
 * An answer other than success, thrown by a handler and turned into the JSON error body
 * of our conventions (`{"error": …}`, plus `"errors"` for 422) by the server.
 */
export class SandboxHttpError extends EvsyncError {
  override readonly name = 'SandboxHttpError';
  readonly status: number;
  readonly errors: ParamErrors | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    message: string,
    options: { errors?: ParamErrors; headers?: Record<string, string> } = {},
  ) {
    super(message, { code: CODE.EVSYNC_SANDBOX_HTTP, retryable: status === 429 || status >= 500 });
    this.status = status;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

/** A 422 naming one param. */
export function invalidParam(param: string, message: string): SandboxHttpError {
  return new SandboxHttpError(422, `${param} ${message}`, { errors: { [param]: [message] } });
}

export function notFound(what: string): SandboxHttpError {
  return new SandboxHttpError(404, `${what} not found.`);
}
