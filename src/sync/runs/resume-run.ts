import { unknownRunError } from '../../ledger/ledger-error.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { totalsOf, type IntentResultInput } from '../../model/result-records.js';
import type { RunRecord } from '../../model/run-record.js';
import { PARENT_MISSING } from '../phases/dependency-gate.js';
import { isKeyOwners } from '../plan/key-owners-check-in.js';
import { CHECK_IN_OUTCOME_UNKNOWN } from '../processors/check-in-processor.js';
import type { EngineDeps } from '../execute/engine-deps.js';
import { executeAndFinish } from '../execute/execute-and-finish.js';
import { PLATFORM_DOWN_CODES } from '../execute/platform-down.js';
import { resumeStream } from './resume-feed.js';
import { depsForPlatform, requireRunConference } from './conference-scope.js';
import { whileClaimed, whileJobLocked } from './run-claim.js';
import { refusePrunedRun } from '../prune/refuse-pruned.js';
import { supersededBy } from './superseded.js';
import { cutShortPlan } from './cut-short-plan.js';
import type { RunSummary } from '../execute/run-summary.js';

/**
 * Finishes a run that was interrupted, aborted or killed: every planned intent without a
 * final result is sent, and so is every one that failed only because the platform was
 * down (see `platform-down.ts`) or was skipped for a failed parent. Safe after a `kill -9`
 * because processors reconcile a create whose answer was lost instead of creating twice;
 * a check-in whose POST had started (its send mark) is held back, and one that another
 * run (a retry, the job's next run) has posted since is not posted again.
 */
export async function resumeRun(engine: EngineDeps, runId: string): Promise<RunSummary> {
  const deps = await depsForPlatform(engine);
  const stored = await deps.ledger.getRun(runId);
  if (!stored) throw unknownRunError(runId);
  refusePrunedRun(stored, 'resume');
  return whileJobLocked(deps, stored.jobName, (lock) =>
    whileClaimed(deps.ledger, runId, async () => {
      // Read again once claimed: the run may have ended between the first read and the claim.
      const run = await deps.ledger.getRun(runId);
      if (!run) throw unknownRunError(runId);
      refusePrunedRun(run, 'resume');
      requireRunConference(deps.ledger, run);
      await lock.holding(runId);
      return resumeClaimed(deps, run);
    }),
  );
}

async function resumeClaimed(deps: EngineDeps, run: RunRecord): Promise<RunSummary> {
  const { ledger } = deps;
  const runId = run.id;
  // No `runId` in the log lines below: `evsync resume` binds it on its logger, and pino
  // would write the key twice.
  if (run.status === 'completed' && (await ledger.pendingIntents(runId, { limit: 1 })).length === 0) {
    // Nothing to do: its status and timings stay those of the run that finished it.
    deps.logger?.info('run is completed: nothing to resume');
    const counts = await ledger.resultCounts(runId);
    return { run, counts, totals: totalsOf(counts) };
  }
  // Claimed: no live evsync works on it, so a run still marked running was cut off.
  if (run.status === 'running') deps.logger?.warn('run is marked running: resuming it as crashed');
  // The run's plan and results were written after the ledger's statistics were taken.
  await ledger.refreshPlanStatistics();
  await ledger.setRunStatus(runId, 'running');
  // How long it took is counted from here (`runTook`): not the time it stood stopped.
  await ledger.mergeRunOptions(runId, { resumedAt: new Date().toISOString() });
  // Marked on the run page's chart of calls: where the run came back (docs/dashboard.md).
  await ledger
    .recordCallSeconds([
      { runId, at: new Date(Math.floor(Date.now() / 1000) * 1000), outcome: 'resume', calls: 1 },
    ])
    .catch(() => {});
  // What failed only because the platform was down (or refused our key) is sent again, and
  // so is every dependent skipped for a failed parent: the parent may succeed this time. Not
  // one skipped for a held key: its planned intent names the key as the source had it then,
  // and once the hold is let go the source has often moved it to the new holder's key; the
  // next run of the job sends it as the source has it (docs/sync-engine.md, "Who is who").
  const reopened =
    (await ledger.reopenIntents(runId, { actions: ['failed'], errorCodes: PLATFORM_DOWN_CODES })) +
    (await ledger.reopenIntents(runId, { actions: ['skipped'], errorCodes: [PARENT_MISSING] }));
  // Page by page: the pending intents, and what each page needs from the ledger (resume-feed.ts).
  // A later run of the job read its rows from the source again since: what this one had left is stale.
  const later = await supersededBy(ledger, run);
  if (later !== undefined)
    deps.logger?.warn(
      { supersededBy: later.id },
      'a later run of the job completed since: nothing of this plan is sent',
    );
  const { stream, tally } = resumeStream(
    deps,
    run,
    (item) => answerLostInCrash(runId, item),
    later === undefined ? {} : { supersededBy: later },
  );
  deps.logger?.info({ reopened }, 'resuming run');
  const cut = await planCutShort(ledger, run);
  // Results decided from the ledger as read (a check-in's lost answer guessed from its send
  // mark, one posted since…) are written only for intents that still have no result: in
  // distributed mode, jobs of the killed pass that workers still hold record their real
  // outcome meanwhile, and that one stays.
  const summary = await executeAndFinish(deps, { runId, work: [], unchanged: [], stream });
  deps.logger?.info({ pending: tally.pending, sendCutOff: tally.cutOff }, 'resumed run');
  if (cut === undefined || summary.stopped) return summary;
  // Every sent intent was in the recorded part (the engine sends an intent only once its
  // chunk of the plan is recorded); the rest was never sent and only a new run plans it.
  if (run.options.readWhole === true)
    return {
      ...summary,
      run: await ledger.finishRun(runId, 'aborted'),
      stopped: 'aborted',
      reason:
        'the delete threshold stopped the run after its sources were read: what it planned is finished; ' +
        'the deletes of mirror mode were never planned',
      nextStep:
        'Check why so many rows left the source; if that is right, run the job again with --force to delete them.',
    };
  const reason =
    cut.planned === undefined
      ? `the run was stopped while its sources were being read: the ${cut.recorded} intents planned by then ` +
        'are finished now; the rest of the sources was never planned nor sent'
      : `the run was stopped while its plan was being recorded: ${cut.recorded} of ${cut.planned} intents ` +
        `were recorded, and those are finished now; the other ${cut.planned - cut.recorded} were never sent`;
  deps.logger?.warn(cut, 'resumed run had a plan cut short');
  return {
    ...summary,
    run: await ledger.finishRun(runId, 'aborted'),
    stopped: 'aborted',
    reason,
    // The rows of a full run never planned are synced as far as the ledger knows: only
    // another full run sends them (docs/sync-engine.md, "Full runs").
    nextStep:
      run.options.full === true
        ? 'Run the job again with --full to send them (nothing is sent twice).'
        : 'Run the job again to send them (nothing is sent twice).',
  };
}

/**
 * A call that must not be repeated (a check-in POST) had started when the run died, and
 * no answer was recorded: the platform may have it, so it is not sent again. Its code is
 * the one of a lost check-in answer, so later runs hold the row back too.
 */
export function answerLostInCrash(runId: string, item: PlannedIntent): IntentResultInput {
  return {
    runId,
    kind: item.kind,
    key: item.key,
    action: 'failed',
    origin: item.origin,
    attempts: 1,
    errorCode: CHECK_IN_OUTCOME_UNKNOWN,
    errorMessage:
      'The run stopped while this check-in was being sent, before its answer was recorded, so the platform may have it. ' +
      `It was not sent again to avoid a duplicate: check the platform, then \`evsync retry ${runId} --client-id ${item.key}${isKeyOwners(item) ? '' : ' --resend-unknown'}\` if it is missing` +
      (isKeyOwners(item) ? " (the retry looks it up among the key owner's check-ins first)." : '.'),
    params: item.params,
  };
}

/** `cutShortPlan`, its recorded count kept: settled intents leave the plan once a resume has finished the run. */
async function planCutShort(
  ledger: EngineDeps['ledger'],
  run: RunRecord,
): Promise<{ planned: number | undefined; recorded: number } | undefined> {
  const cut = await cutShortPlan(ledger, run);
  // Once a resume has finished the run, its settled intents leave the plan
  // (`DELETE_SETTLED_PLANNED`): the count it found is kept, and a later resume says the same.
  if (cut !== undefined && typeof run.options.recordedWhenCut !== 'number')
    await ledger.mergeRunOptions(run.id, { recordedWhenCut: cut.recorded });
  return cut;
}
