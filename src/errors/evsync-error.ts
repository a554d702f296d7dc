import { CODE, type ErrorCode } from './codes.js';

/**
 * The one error base of evsync. Callers decide on `code` and `retryable`, never on message
 * text (as undici and BullMQ do). Messages say what was wrong, where, and what to do.
 */
export interface EvsyncErrorOptions {
  code: ErrorCode;
  retryable?: boolean;
  cause?: unknown;
}

export class EvsyncError extends Error {
  override readonly name: string = 'EvsyncError';
  readonly code: ErrorCode;
  readonly retryable: boolean;

  constructor(message: string, options: EvsyncErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.retryable = options.retryable ?? false;
  }
}

/** A configuration, job or mapping file problem: the run cannot start (exit code 2). */
export class ConfigError extends EvsyncError {
  override readonly name = 'ConfigError';
  constructor(message: string, options: { code?: ErrorCode; cause?: unknown } = {}) {
    super(message, { code: options.code ?? CODE.EVSYNC_CONFIG, retryable: false, cause: options.cause });
  }
}

export function isEvsyncError(error: unknown): error is EvsyncError {
  return error instanceof EvsyncError;
}

/** The message of anything thrown, for a result row or a log line. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
