import type { RunSummaryData } from './dashboard-data.js';
import { shownStatus } from './dashboard-data.js';

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

type RunFacts = Pick<RunSummaryData, 'status' | 'processGone' | 'counts' | 'pruned'>;

export function nextStep(run: RunFacts): NextStep {
  const status = shownStatus(run);
  const failed = run.counts.failed ?? 0;
  const rows = failed === 1 ? '1 row' : `${failed} rows`;
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
  if (status === 'completed' && failed > 0) {
    return step('retry', {
      retry: true,
      advice:
        `It ran to its end and ${rows} failed: fix their cause (see the errors below), then Retry sends them ` +
        'again as a new run. Nothing is left to resume.',
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

function step(primary: RunStep, rest: Partial<NextStep> & { advice: string }): NextStep {
  return { primary, retry: false, resume: false, ...rest };
}

/** A run's badge: `completed, 12 failed` is not a success, and wears its own colour. */
export function statusLabel(run: Pick<RunSummaryData, 'status' | 'processGone' | 'counts'>): {
  label: string;
  tone: string;
} {
  const status = shownStatus(run);
  const failed = run.counts.failed ?? 0;
  if (status === 'completed' && failed > 0)
    return { label: `completed, ${failed} failed`, tone: 'completed-failed' };
  return { label: status, tone: status.replace(' ', '-') };
}
