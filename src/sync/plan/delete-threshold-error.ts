import { CODE } from '../../errors/codes.js';
import { EvsyncError } from '../../errors/evsync-error.js';
import type { DeleteCount } from './sync-plan.js';

/** Mirror mode would delete more than the job allows: nothing was deleted (exit code 3). */
export class DeleteThresholdError extends EvsyncError {
  override readonly name = 'DeleteThresholdError';
  readonly over: DeleteCount[];

  constructor(
    over: DeleteCount[],
    thresholdText: string,
    /**
     * When it was found: `after` the sources were read and what they have sent (a streamed
     * run), `plan` by `evsync plan` (nothing is ever sent), else `before` anything was sent.
     */
    when: ThresholdWhen = 'before',
    /** The first keys of a kind it would delete, each with the name and e-mail last sent. */
    firstOf: (kind: DeleteCount['kind']) => string[] = () => [],
  ) {
    const parts = over.map((c) => {
      const first = firstOf(c.kind);
      return (
        `${c.deletes} of ${c.known} known ${c.kind}s (${percent(c.deletes, c.known)}; the threshold allows ${c.allowed}` +
        `${first.length > 0 ? `; first: ${first.join(', ')}${c.deletes > first.length ? ', …' : ''}` : ''})`
      );
    });
    super(
      `Mirror mode would delete ${parts.join(' and ')}, above delete_threshold ${thresholdText}. ` +
        WHAT_HAPPENED[when] +
        'Check that the source is complete; if these deletes are intended, run again with --force.',
      { code: CODE.EVSYNC_DELETE_THRESHOLD, retryable: false },
    );
    this.over = over;
  }
}

export type ThresholdWhen = 'before' | 'after' | 'plan';

const WHAT_HAPPENED: Record<ThresholdWhen, string> = {
  before: 'Nothing was sent. ',
  after: 'Nothing was deleted (what the sources have was synced). ',
  plan: 'A run would sync what the sources have and then delete nothing. ',
};

function percent(part: number, whole: number): string {
  return whole === 0 ? '100%' : `${((part * 100) / whole).toFixed(1)}%`;
}
