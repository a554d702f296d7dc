import type { RunSummaryData } from './dashboard-data.js';
import { shownStatus } from './dashboard-data.js';
import { notSyncedNote, rowCount } from '../model/run-record.js';

/**
 * Which action a run's page puts first, and the line that says why (docs/dashboard.md, "A
 * run"). Resume and retry answer different questions: resume finishes a run that stopped
 * before its end, under its own id; retry sends a finished run's failed rows again, as a new
 * run. A page offers each only when it has something to do.
 */
export type RunStep = 'retry' | 'resume' | 'rerun' | 'wait';

export interface NextStep {
  /** The action the page's main button does. */
  primary: RunStep;
  /** Whether the page offers a retry at all: a finished run with failed rows. */
  retry: boolean;
  /** Whether it offers a resume: a stopped run (interrupted, aborted, cut off). */
  resume: boolean;
  /** One line: which of the two to use, and why. */
  advice: string;
}

/** Statuses of a run that stopped before its end; `cut off` is a running run whose process is gone. */
export const STOPPED = ['interrupted', 'aborted', 'cut off'] as const;

type RunFacts = Pick<RunSummaryData, 'status' | 'processGone' | 'counts' | 'lost' | 'pruned'>;

export function nextStep(run: RunFacts): NextStep {
  const status = shownStatus(run);
  const failed = run.counts.failed ?? 0;
  const rows = rowCount(failed);
  if (run.pruned !== null) {
    return step('rerun', {
      advice:
        'Its rows were pruned: there is nothing left to retry or resume. Run the job again to send what changed.',
    });
  }
  if (status === 'running') {
    return step('wait', {
      advice: 'Still running: this page follows it. Once it ends, the page says whether to retry or resume.',
    });
  }
  if ((STOPPED as readonly string[]).includes(status)) {
    return step('resume', {
      resume: true,
      advice:
        `It stopped before its end (${status}): Resume finishes it under its own id, sending what was never sent ` +
        'and again what failed only because the platform was unreachable. Retry comes after, for rows that still fail.',
    });
  }
  const lost = lostClause(run.lost);
  if (status === 'completed' && failed > 0) {
    return step('retry', {
      retry: true,
      advice:
        `It ran to its end and ${rows} failed: fix their cause (see the errors below), then Retry sends them ` +
        `again as a new run, with what they held back. Nothing is left to resume.${lost}`,
    });
  }
  if (status === 'completed' && run.lost > 0) {
    return step('rerun', {
      advice:
        `It ran to its end, but ${run.lost === 1 ? '1 row was' : `${run.lost} rows were`} lost for want of data ` +
        'they need (skipped, or a schedule sent without some of its events): a user or event that is held as now ' +
        'another person, failed in another run, or is in no source; each such row below says which. Fix that, then ' +
        'run the job again: Retry has nothing of this run to send.',
    });
  }
  if (status === 'completed') {
    return step('rerun', { advice: 'It ran to its end without failures: nothing to retry or resume.' });
  }
  if (status === 'failed') {
    return step('rerun', {
      advice:
        'It failed before sending anything (see why it stopped): nothing to retry or resume. Fix the job, then run it again.',
    });
  }
  return step('rerun', { advice: `It is ${status}: nothing to retry or resume.` });
}

/** After a retry's advice: the rows lost beside the failed ones, which a retry sends only if their parent failed here. */
function lostClause(lost: number): string {
  if (lost === 0) return '';
  return ` ${lost === 1 ? '1 row was' : `${lost} rows were`} also lost for want of data: those whose user or event failed here go with the retry; the others need that user or event synced first (each such row below says which).`;
}

function step(primary: RunStep, rest: Partial<NextStep> & { advice: string }): NextStep {
  return { primary, retry: false, resume: false, ...rest };
}

/** A run's badge: `completed, 12 failed` is not a success, and wears its own colour. */
export function statusLabel(run: Pick<RunSummaryData, 'status' | 'processGone' | 'counts' | 'lost'>): {
  label: string;
  tone: string;
} {
  const status = shownStatus(run);
  const notSynced = notSyncedNote(run);
  if (status === 'completed' && notSynced !== '')
    return { label: `completed, ${notSynced}`, tone: 'completed-failed' };
  return { label: status, tone: status.replace(' ', '-') };
}
