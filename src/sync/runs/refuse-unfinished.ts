import { CODE } from '../../errors/codes.js';
import { EvsyncError } from '../../errors/evsync-error.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { RunRecord } from '../../model/run-record.js';
import { cutShortPlan } from './cut-short-plan.js';
import { jobFileOf } from './restore-params.js';
import { supersededBy } from './superseded.js';

/** Statuses of a run that stopped before its end: `running` is one once claimed (cut off). */
const STOPPED = new Set(['aborted', 'interrupted', 'running']);

/**
 * A retry sends a run's failed rows again as a new run. Of a run that stopped before its end
 * (aborted, interrupted, cut off) it would send those few and leave every intent the run
 * never sent, while its completed run made the job look synced (`status`, `notify:`). The
 * order is the dashboard's (docs/dashboard.md, "A run"): resume finishes the run, retry comes
 * after, for rows that still fail. Refused here with that order (`EVSYNC_RETRY_UNFINISHED_RUN`)
 * when the run left intents without a result or its plan was cut short; a stopped run that
 * gave every intent a result (all failed while the platform was down) is retried.
 * `claimed`: `running` then means cut off, as no live process holds the run.
 */
export async function refuseUnfinishedRun(
  ledger: UnfinishedLedger,
  run: RunRecord,
  claimed: boolean,
): Promise<void> {
  const unfinished = await unfinishedRun(ledger, run, claimed);
  if (unfinished !== undefined)
    throw new EvsyncError(unfinished.message, { code: CODE.EVSYNC_RETRY_UNFINISHED_RUN });
}

type UnfinishedLedger = Pick<Ledger, 'countPlanned' | 'pendingIntents' | 'listRuns'> &
  Parameters<typeof jobFileOf>[0];

/**
 * Why a retry of `run` is refused (`refuseUnfinishedRun`), and whether a resume is the way on
 * (else a run of the job): what the dashboard's retry page says before anyone presses it.
 */
export async function unfinishedRun(
  ledger: UnfinishedLedger,
  run: RunRecord,
  claimed: boolean,
): Promise<{ message: string; resume: boolean } | undefined> {
  if (!STOPPED.has(run.status) || (run.status === 'running' && !claimed)) return undefined;
  const how = run.status === 'running' ? 'cut off: its process is gone' : run.status;
  // A later run of the job that read the sources whole took what this one left (a resume
  // sends nothing of it either, superseded.ts): a lost check-in's retry is asked of it then.
  if ((await supersededBy(ledger, run)) !== undefined) return undefined;
  // A run that gave every intent a result (all failed for the platform) has nothing unsent.
  // The delete threshold stops a plan after every source was read: its failed rows are retried.
  const cut = run.options.readWhole !== true && (await cutShortPlan(ledger, run)) !== undefined;
  if (!cut && (await ledger.pendingIntents(run.id, { limit: 1 })).length === 0) return undefined;
  const file = await jobFileOf(ledger, run);
  const rerun = file === undefined ? 'run the job again' : `run the job again (evsync run ${file})`;
  return {
    resume: !cut,
    message:
      `Cannot retry run ${run.id}: it stopped before its end (${how}), and a retry sends only its failed rows. ` +
      (cut
        ? `Its sources were not read to the end, so a resume would send only what was planned: ${rerun}; it sends what was never sent and what failed.`
        : `Finish it first: \`evsync resume ${run.id}\` sends what it never sent, and again what failed because the platform was unreachable; ` +
          `then \`evsync retry ${run.id}\` sends the rows that still fail.`),
  };
}
