import { CODE } from '../../errors/codes.js';
import { EvsyncError } from '../../errors/evsync-error.js';
import type { RunRecord } from '../../model/run-record.js';
import { pruneDay } from './pruned-note.js';

/**
 * `resume` and `retry` read a run's planned intents and results: a run whose rows
 * `evsync prune` removed (or is removing: a prune cut off half way) has neither, and would
 * look as if nothing were left to send. Refused instead (`EVSYNC_RUN_PRUNED`).
 */
export function refusePrunedRun(run: RunRecord, doing: 'resume' | 'retry'): void {
  if (run.pruned === undefined) return;
  const when = run.pruned.prunedAt ?? run.pruned.startedAt;
  const state =
    run.pruned.prunedAt === null
      ? `a prune of its rows started on ${pruneDay(when)} and was cut off (\`evsync prune\` finishes it)`
      : `its rows were pruned on ${pruneDay(when)} (retention: ${run.pruned.rule})`;
  throw new EvsyncError(
    `Cannot ${doing} run ${run.id}: ${state}; its counts are kept, its per-row data is not. ` +
      `Run the job again instead: it sends what changed and what failed.`,
    { code: CODE.EVSYNC_RUN_PRUNED },
  );
}
