import { CODE, type ErrorCode } from '../errors/codes.js';
import { EvsyncError } from '../errors/evsync-error.js';
import { redactUrl } from '../log/redaction.js';

/**
 * A ledger problem, with one of the ledger's codes (docs/errors.md, "The ledger").
 * Messages never carry a connection URL's credentials.
 */
export class LedgerError extends EvsyncError {
  override readonly name = 'LedgerError';
  constructor(message: string, options: { code: ErrorCode; retryable?: boolean; cause?: unknown }) {
    super(redactUrl(message), options);
  }
}

export function unknownRunError(runId: string): LedgerError {
  return new LedgerError(`No run "${runId}" in the ledger. List runs with \`evsync runs\`.`, {
    code: CODE.EVSYNC_LEDGER_UNKNOWN_RUN,
  });
}
