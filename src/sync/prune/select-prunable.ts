import { describeRetention, type Retention, retentionAgeMs } from '../../config/retention.js';
import type { PruneRunInfo } from '../../ledger/ledger-pruning.js';

/** Statuses of a run that nothing finishes any more; every other one may still be resumed. */
const SETTLED = new Set(['completed', 'skipped']);

/** A run retention selected but keeps, and why. */
export interface HeldRun {
  run: PruneRunInfo;
  reason: string;
}

/** What to prune in one job's runs (of one conference), oldest first. */
export interface PruneSelection {
  prune: PruneRunInfo[];
  /** Runs the retention selects that stay, each with its reason (the first run kept, and those after it). */
  held: HeldRun[];
}

/**
 * The runs of one job and conference (oldest first, by `seq`) that `retention` lets go.
 * A run is selected when it is older than `olderThan` (its end) and beyond the job's newest
 * `keepRuns` runs, whichever of the two is given (docs/ledger.md, "Retention"). Runs are
 * pruned oldest first and the walk stops at the first run that stays: a run that can still
 * be resumed, one with planned intents without a final result, the job's newest completed
 * run, or one the retention keeps. So every run that stays sees the results of all runs
 * after it (`handledLater`: a resume or a retry of it never overwrites what a later run
 * sent). A run whose prune was cut off is finished first, whatever the retention.
 */
export async function selectPrunable(
  runs: readonly PruneRunInfo[],
  retention: Retention,
  now: Date,
  hasPending: (run: PruneRunInfo) => Promise<boolean>,
): Promise<PruneSelection> {
  const selected = selectedByRetention(runs, retention, now);
  const newestCompleted = runs.findLast((run) => run.status === 'completed');
  const prune: PruneRunInfo[] = [];
  const held: HeldRun[] = [];
  let stop: string | undefined;
  for (const run of runs) {
    if (run.pruning === 'done') continue;
    if (stop !== undefined) {
      if (selected.has(run.id)) held.push({ run, reason: stop });
      continue;
    }
    if (run.pruning === 'started') {
      prune.push(run);
      continue;
    }
    if (!selected.has(run.id)) {
      // Kept by the retention: later runs are newer, so kept too; nothing to say.
      stop = `kept by the retention (${describeRetention(retention)}), as is a run before it`;
      continue;
    }
    const reason = await keptBecause(run, newestCompleted, hasPending);
    if (reason === undefined) {
      prune.push(run);
      continue;
    }
    held.push({ run, reason });
    stop = `a run before it is kept (${run.id}: ${reason}), and a run kept sees every run after it`;
  }
  return { prune, held };
}

/** Why a run the retention selected must stay, if it must. */
async function keptBecause(
  run: PruneRunInfo,
  newestCompleted: PruneRunInfo | undefined,
  hasPending: (run: PruneRunInfo) => Promise<boolean>,
): Promise<string | undefined> {
  if (!SETTLED.has(run.status)) return `it is ${run.status}: \`evsync resume ${run.id}\` can still finish it`;
  if (run.id === newestCompleted?.id)
    return "the job's newest completed run (retry and the next run read it)";
  if (await hasPending(run))
    return `it has planned intents without a final result: \`evsync resume ${run.id}\` can still send them`;
  return undefined;
}

/** The ids of the runs the retention's rules select (both, when both are given). */
function selectedByRetention(runs: readonly PruneRunInfo[], retention: Retention, now: Date): Set<string> {
  const selected = new Set<string>();
  // No rule (a job without retention): nothing is selected, not everything.
  if (retention.olderThan === undefined && retention.keepRuns === undefined) return selected;
  const cutoff =
    retention.olderThan === undefined ? undefined : now.getTime() - retentionAgeMs(retention.olderThan);
  // Skipped runs (a schedule that fired while the job ran) are not counted among the newest N.
  let newer = 0;
  for (let i = runs.length - 1; i >= 0; i--) {
    const run = runs[i]!;
    const beyondNewest = retention.keepRuns === undefined || newer >= retention.keepRuns;
    const old = cutoff === undefined || (run.finishedAt !== null && run.finishedAt.getTime() <= cutoff);
    if (beyondNewest && old) selected.add(run.id);
    if (run.status !== 'skipped') newer++;
  }
  return selected;
}
