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

/** `EVSYNC_LEDGER_BUSY` or `EVSYNC_JOB_BUSY`, with who holds it in words (for `--wait`'s notice). */
export class LedgerBusyError extends LedgerError {
  constructor(
    message: string,
    override readonly code: typeof CODE.EVSYNC_LEDGER_BUSY | typeof CODE.EVSYNC_JOB_BUSY,
    /** e.g. `the embedded ledger in ./.evsync is open in process 4711`. */
    readonly holder: string,
  ) {
    super(message, { code });
  }
}
