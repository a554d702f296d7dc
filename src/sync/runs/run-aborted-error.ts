import { CODE, type ErrorCode } from '../../errors/codes.js';
import { EvsyncError } from '../../errors/evsync-error.js';

/**
 * The run stopped before its end because going on was pointless (the platform cannot be
 * reached) — exit code 3. What was not done stays pending: `evsync resume RUN` finishes it.
 */
export class RunAbortedError extends EvsyncError {
  override readonly name = 'RunAbortedError';
  readonly runId: string;

  constructor(runId: string, reason: string, code: ErrorCode = CODE.EVSYNC_ABORTED) {
    super(`Run ${runId} aborted: ${reason}. Fix the cause, then finish it with \`evsync resume ${runId}\`.`, {
      code,
      retryable: false,
    });
    this.runId = runId;
  }
}
