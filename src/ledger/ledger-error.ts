import { EvsyncError } from '../errors/evsync-error.js';
import { redactUrl } from '../log/redaction.js';

/**
 * A ledger problem. Codes:
 * - `EVSYNC_LEDGER_UNAVAILABLE` (retryable): the database cannot be reached or opened;
 * - `EVSYNC_LEDGER_TOO_NEW`: the database was migrated by a newer evsync;
 * - `EVSYNC_LEDGER_BUSY`: the embedded ledger folder is open in another process;
 * - `EVSYNC_JOB_BUSY`: another process runs, resumes or retries the job (`Ledger.lockJob`);
 * - `EVSYNC_LEDGER_MIGRATION`: a migration failed (it was rolled back);
 * - `EVSYNC_LEDGER_UNKNOWN_RUN`: no run has that id;
 * - `EVSYNC_LEDGER_CLOSED`: used after `close()`.
 * Messages never carry a connection URL's credentials.
 */
export class LedgerError extends EvsyncError {
  override readonly name = 'LedgerError';
  constructor(message: string, options: { code: string; retryable?: boolean; cause?: unknown }) {
    super(redactUrl(message), options);
  }
}

export function unknownRunError(runId: string): LedgerError {
  return new LedgerError(`No run "${runId}" in the ledger. List runs with \`evsync runs\`.`, {
    code: 'EVSYNC_LEDGER_UNKNOWN_RUN',
  });
}

/** `EVSYNC_LEDGER_BUSY` or `EVSYNC_JOB_BUSY`, with who holds it in words (for `--wait`'s notice). */
export class LedgerBusyError extends LedgerError {
  constructor(
    message: string,
    override readonly code: 'EVSYNC_LEDGER_BUSY' | 'EVSYNC_JOB_BUSY',
    /** e.g. `the embedded ledger in ./.evsync is open in process 4711`. */
    readonly holder: string,
  ) {
    super(message, { code });
  }
}
