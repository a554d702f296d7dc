import { type ActionCounts, type RunResultCounts, RESULT_ACTIONS } from '../../model/result-records.js';
import { rowCount, runTook, sourcesCutShort, type RunRecord } from '../../model/run-record.js';
import { INTENT_KINDS } from '../../model/intent.js';
import { FULL_RUN_LINE, skippedLine, type PlanSummary } from '../plan/plan-summary.js';
import { warningLines } from '../plan/warning-lines.js';
import { withoutFullStop } from './execute-plan.js';

/** How a run ended, for the CLI and the tests. */
export interface RunSummary {
  run: RunRecord;
  /** Final results per kind and action, from the ledger. */
  counts: RunResultCounts;
  totals: ActionCounts;
  /**
   * Some rows were skipped for want of data (an empty value a condition needs, a missing
   * user or event), not filtered out on purpose: the run did not sync all it was given.
   */
  rowsLost?: boolean;
  /**
   * The skipped results split into those meant (`onPurpose`: a `when:` condition, and links
   * naming what it left out or a run deleted) and data `lost` (exit 1); `schedulesShort`:
   * schedules sent without some of their events (each result's message names them).
   */
  skipped?: NonNullable<PlanSummary['skipped']> & { schedulesShort: number };
  stopped?: 'interrupted' | 'aborted';
  reason?: string;
  /** What to do next when it is not `evsync resume RUN` (see `ExecuteResult.nextStep`). */
  nextStep?: string;
  plan?: PlanSummary;
  /**
   * Failed check-ins the platform may have: `lost` their answer in this run
   * (`EVSYNC_CHECK_IN_OUTCOME_UNKNOWN`), `held` back for a lost answer (`EVSYNC_CHECK_IN_HELD_BACK`);
   * `keys`: the first few of them. A plain `evsync retry` does not post these twice.
   */
  uncertainCheckIns?: { lost: number; held: number; keys: string[] };
}

/** A table of results per kind and action, and a line on what to do next. */
export function formatRunSummary(summary: RunSummary): string {
  const kinds = INTENT_KINDS.filter((kind) => summary.counts[kind]);
  // `retired` (mirror keys whose platform record another source key has) only when some are.
  const actions = RESULT_ACTIONS.filter((a) => a !== 'retired' || (summary.totals.retired ?? 0) > 0);
  const header = ['kind', ...actions];
  const rows = kinds.map((kind) => [kind, ...actions.map((a) => String(summary.counts[kind]?.[a] ?? 0))]);
  rows.push(['total', ...actions.map((a) => String(summary.totals[a] ?? 0))]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => c.padStart(i === 0 ? 0 : (widths[i] ?? 0)).padEnd(widths[i] ?? 0)).join('  ');
  const { run } = summary;
  const pass = runTook(run);
  const took = pass ? ` in ${pass.seconds.toFixed(1)} s${pass.resumed ? ' since its resume' : ''}` : '';
  const out = [
    `Run ${run.id} (${run.jobName}, ${run.mode}): ${run.status}${took}`,
    '',
    // A resume of a full run says it too: the flag is the run's, recorded with its options.
    ...(run.options.full === true ? [FULL_RUN_LINE, ''] : []),
    line(header),
    ...rows.map(line),
  ];
  const failed = summary.totals.failed ?? 0;
  if (summary.plan && summary.plan.losses.length > 0)
    out.push('', ...summary.plan.losses.map((loss) => `! ${loss}`));
  const warned = warningLines(summary.plan?.warnings);
  if (warned.length > 0) out.push('', ...warned);
  const merged = summary.plan?.merged;
  // Nobody merged: the refused rows are among the failed ones, each with its message.
  if (merged && merged.people > 0)
    out.push(
      '',
      `Merged people: ${merged.people} people described by ${merged.rows} rows of several steps, one user each; ` +
        `${merged.conflicts} fields differed between steps (evsync plan shows examples).`,
    );
  if (summary.stopped)
    out.push(
      '',
      `Stopped early: ${withoutFullStop(summary.reason ?? summary.stopped)}. ${summary.nextStep ?? `Finish it with: evsync resume ${run.id}`}`,
    );
  const skipped = skippedLine(summary.skipped);
  if (skipped) out.push('', skipped);
  // A retry's own skips: rows gone from the source, or synced by a later run. The others
  // (lost, meant, duplicates) the lines above and below tell.
  const split = summary.skipped;
  const told = split ? split.lost + split.onPurpose + (split.duplicates ?? 0) + (split.suppressed ?? 0) : 0;
  const notSent = Math.max(0, (summary.totals.skipped ?? 0) - told);
  if (typeof run.options.retryOf === 'string' && notSent > 0)
    out.push(
      '',
      `${notSent} row(s) not sent: taken out of the source since, or synced by a later run; each says why:  evsync report ${run.id} --status skipped`,
    );
  const outside = run.failedOutside ?? 0;
  if (typeof run.options.retryOf === 'string' && outside > 0)
    out.push(
      '',
      `${rowCount(outside)} of run ${run.options.retryOf} still ${outside === 1 ? 'fails' : 'fail'}, outside this retry's filter: ` +
        `not synced, so the job has no success until they are. Send them once fixed:  evsync retry ${run.options.retryOf}`,
    );
  const short = summary.skipped?.schedulesShort ?? 0;
  if (short > 0)
    out.push(
      ...(skipped ? [] : ['']),
      `${short} schedule${short === 1 ? ' was' : 's were'} sent without some of ${short === 1 ? 'its' : 'their'} events; each result says which and why:  evsync report ${run.id} --status created updated`,
    );
  if (summary.rowsLost && summary.skipped?.lost === 0) {
    out.push('', 'Some events of those schedules failed or are in no source: data lost (exit code 1).');
  } else if (summary.rowsLost) {
    out.push(
      '',
      `Some rows were skipped because data they need is missing. See them:  evsync report ${run.id} --status skipped`,
    );
  }
  if (failed > 0) {
    out.push('', `${failed} row(s) failed. See them:  evsync report ${run.id} --status failed`);
    const uncertain = summary.uncertainCheckIns ?? { lost: 0, held: 0, keys: [] };
    const retryOf = typeof run.options.retryOf === 'string' ? run.options.retryOf : undefined;
    out.push(...uncertainCheckInLines(run.id, uncertain, retryOf));
    const others = failed - uncertain.lost - uncertain.held;
    // A retry now would send some intents that the step above sends as well; a run of the
    // job, the step when the sources were not read whole, sends the failed rows too.
    if (summary.stopped && sourcesCutShort(run))
      out.push('Running the job again (above) sends them again too, once their cause is fixed.');
    // A run the delete threshold stopped read every source: nothing of it waits for a resume.
    else if (summary.stopped && run.options.readWhole !== true)
      out.push(
        'Finish the run first (above); then re-send what still failed, after fixing: ' +
          `evsync retry ${run.id}`,
      );
    else if (others > 0)
      // A retry reads each failed row again from the source (sync/runs/refused-rows-now.ts).
      out.push(
        (uncertain.lost + uncertain.held > 0
          ? `Re-send the other ${others} once the cause is fixed:   evsync retry ${run.id}`
          : `Re-send them once the cause is fixed:   evsync retry ${run.id}`) +
          '\n(a retry sends each row as the job’s source has it then)',
      );
  }
  return out.join('\n');
}

/**
 * Check-ins that may be on the platform already: said plainly, with what `evsync retry`
 * does with them, so that nobody posts them twice by following the summary.
 */
function uncertainCheckInLines(
  runId: string,
  { lost, held, keys }: NonNullable<RunSummary['uncertainCheckIns']>,
  /** The run this one retries: its lost answers are the ones held here. */
  retryOf: string | undefined,
): string[] {
  if (lost + held === 0) return [];
  const first = `${keys.slice(0, 5).join(', ')}${lost + held > 5 ? ', …' : ''}`;
  const lines = [
    `${lost + held} of them are check-ins the platform may have already (first: ${first}); they are held back, not posted again.`,
  ];
  if (lost > 0)
    lines.push(
      `  ${lost} lost their answer in this run: \`evsync retry ${runId}\` looks up those the platform lists (the key owner's own, GET /check_in/my), records those it finds and posts those it does not; ` +
        `the others (in another user's name) nothing can look up: check the platform, then post the missing ones with  evsync retry ${runId} --kind check_in --resend-unknown` +
        '  (or --client-id KEY --resend-unknown).',
    );
  if (held > 0 && retryOf !== undefined)
    lines.push(
      `  ${held} lost their answer in run ${retryOf} and nothing can look them up (each row says why: evsync report ${runId} --status failed). ` +
        `Check the platform, then post the missing ones with  evsync retry ${retryOf} --kind check_in --resend-unknown  (or --client-id KEY --resend-unknown).`,
    );
  else if (held > 0)
    lines.push(
      `  ${held} were held back because an earlier run lost their answer: each row names the run to retry and the command (evsync report ${runId} --status failed).`,
    );
  return lines;
}
