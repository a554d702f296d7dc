import { CODE, type ErrorCode } from '../errors/codes.js';
import { ConfigError } from '../errors/evsync-error.js';

/** A mapping that cannot be used at all (unknown name, unreadable module): a usage error. */
export class MappingError extends ConfigError {
  constructor(message: string, options: { code?: ErrorCode; cause?: unknown } = {}) {
    super(message, { code: options.code ?? CODE.EVSYNC_MAPPING, cause: options.cause });
  }
}
