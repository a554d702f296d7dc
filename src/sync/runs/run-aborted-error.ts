import { CODE, type ErrorCode } from '../../errors/codes.js';
import { EvsyncError } from '../../errors/evsync-error.js';

/**
 * The run stopped before its end because going on was pointless (the platform cannot be
 * reached, its source broke while it was read) — exit code 3, the run `aborted` in the
 * ledger and in its notice, with the same words (issue #41: a query failing at its second
 * fetch exited 2 while the run was recorded `aborted`). `nextStep` says how to finish:
 * `evsync resume RUN` by default.
 */
export class RunAbortedError extends EvsyncError {
  override readonly name = 'RunAbortedError';
  readonly runId: string;

  constructor(
    runId: string,
    reason: string,
    options: { code?: ErrorCode; cause?: unknown; nextStep?: string } = {},
  ) {
    const nextStep = options.nextStep ?? `Fix the cause, then finish it with \`evsync resume ${runId}\`.`;
    super(`Run ${runId} aborted: ${reason.replace(/[.\s]+$/, '')}. ${nextStep}`, {
      code: options.code ?? CODE.EVSYNC_ABORTED,
      retryable: false,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.runId = runId;
  }
}
