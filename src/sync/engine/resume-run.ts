import { unknownRunError } from '../../ledger/ledger-error.js';
import type { PlannedIntent, RunRecord } from '../../ledger/ledger.js';
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
  const cut = await planCutShort(ledger, run);
  const summary = await executeAndFinish(deps, { runId, work, unchanged, settledParents });
  if (cut === undefined || summary.stopped) return summary;
  // Every sent intent was in the recorded part (the engine sends an intent only once its
  // chunk of the plan is recorded); the rest was never sent and only a new run plans it.
  const reason =
    `the run was stopped while its plan was being recorded: ${cut.recorded} of ${cut.planned} intents ` +
    `were recorded, and those are finished now; the other ${cut.planned - cut.recorded} were never sent. ` +
    'Run the job again to send them (nothing is sent twice).';
  deps.logger?.warn({ runId, ...cut }, 'resumed run had a plan cut short');
  return { ...summary, run: await ledger.finishRun(runId, 'aborted'), stopped: 'aborted', reason };
}

/** The planned and recorded counts when fewer intents are recorded than the run planned. */
async function planCutShort(
  ledger: EngineDeps['ledger'],
  run: RunRecord,
): Promise<{ planned: number; recorded: number } | undefined> {
  const planned = run.options.planned;
  // Runs recorded before the count was stored, and retries, record their plan in one go.
  if (typeof planned !== 'number') return undefined;
  const recorded = await ledger.countPlanned(run.id);
  return recorded < planned ? { planned, recorded } : undefined;
}
