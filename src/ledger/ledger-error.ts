import { EvsyncError } from '../errors/evsync-error.js';
import { redactUrl } from '../log/redaction.js';

/**
 * A ledger problem. Codes:
 * - `EVSYNC_LEDGER_UNAVAILABLE` (retryable): the database cannot be reached or opened;
 * - `EVSYNC_LEDGER_TOO_NEW`: the database was migrated by a newer evsync;
 * - `EVSYNC_LEDGER_BUSY`: the embedded ledger folder is open in another process;
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
