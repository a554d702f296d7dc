import { unknownRunError } from '../../ledger/ledger-error.js';
import type { PlannedIntent } from '../../ledger/ledger.js';
import { PARENT_KINDS } from '../../mapping/intent.js';
import type { EngineDeps } from './engine-deps.js';
import type { RunWork } from './execute-and-finish.js';
import { executeAndFinish } from './execute-and-finish.js';
import { isSuccess } from './intent-result.js';
import { restorePlanned } from './restore-params.js';
import type { RunSummary } from './run-summary.js';

/**
 * Finishes a run that was interrupted, aborted or killed: every planned intent without a
 * final result is sent again. Safe after a `kill -9` because processors reconcile a
 * create whose answer was lost instead of creating twice.
 */
export async function resumeRun(deps: EngineDeps, runId: string): Promise<RunSummary> {
  const { ledger } = deps;
  const run = await ledger.getRun(runId);
  if (!run) throw unknownRunError(runId);
  const pending = (await ledger.pendingIntents(runId)).map(restorePlanned);
  if (run.status === 'running') deps.logger?.warn({ runId }, 'run is marked running: resuming it as crashed');
  await ledger.setRunStatus(runId, 'running');

  const settledParents: Array<NonNullable<RunWork['settledParents']>[number]> = [];
  for await (const result of ledger.eachResult(runId, { kinds: PARENT_KINDS })) {
    settledParents.push({
      kind: result.kind as 'user' | 'event',
      key: result.key,
      ok: isSuccess(result.action),
      reason: result.errorMessage ?? result.action,
    });
  }
  const work: PlannedIntent[] = [];
  const unchanged: PlannedIntent[] = [];
  for (const item of pending) (item.plannedAction === 'unchanged' ? unchanged : work).push(item);
  deps.logger?.info({ runId, pending: pending.length }, 'resuming run');
  return executeAndFinish(deps, { runId, work, unchanged, settledParents });
}
