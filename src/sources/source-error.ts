import type { ErrorCode } from '../errors/codes.js';
import { EvsyncError } from '../errors/evsync-error.js';

/**
 * A source that cannot be read at all (missing file, duplicate header, unreachable
 * database, malformed export). It stops the run before any row is mapped: a usage error.
 */
export class SourceError extends EvsyncError {
  override readonly name = 'SourceError';
  constructor(message: string, options: { code: ErrorCode; retryable?: boolean; cause?: unknown }) {
    super(message, options);
  }
}
