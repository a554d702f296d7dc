import { createRequire } from 'node:module';
import type { CronExpressionParser } from 'cron-parser';
import type { NoticeProblem } from '../../ledger/ledger-notices.js';
import { notSyncedNote, type RunRecord } from '../../model/run-record.js';
import { stepRowsOf } from '../collect/step-rows.js';
import { missedScheduleGraceMs, thresholdOf, type NotifyRules } from './notify-settings.js';

/** What the rules of `notify:` look at: a job's runs as the ledger has them, and its schedule. */
export interface JobFacts {
  /** The job's newest run that ended, or that was cut off (a person's interrupt and a skipped tick are left out). */
  last: RunRecord | undefined;
  /** `last` is `running` but its process is gone (`Ledger.processGone`). */
  lastCutOff: boolean;
  /** The job's newest completed run before `last`: what `rows_dropped` compares with. */
  previousCompleted: RunRecord | undefined;
  /** The job's newest completed run (`last` itself when it completed). */
  lastCompleted: RunRecord | undefined;
  /** The job's schedule, when one is registered and known to the process that looks. */
  schedule?: { cron: string; timezone: string } | undefined;
  now: Date;
}

/** Each rule's name, as states compare them. */
export const RULES = {
  runFailed: 'run_failed',
  failedRows: 'failed_rows',
  rowsDropped: 'rows_dropped',
  missedSchedule: 'missed_schedule',
} as const;

/**
 * The rules of `notify:` that hold for a job now, each with what it says. A schedule counts
 * as missed only while the last run did not fail: a failing run is told as such, and its
 * ticks are not also told as missed.
 */
export function problemsOf(rules: NotifyRules, facts: JobFacts): NoticeProblem[] {
  const problems: NoticeProblem[] = [];
  const { last } = facts;
  if (last !== undefined && rules.run_failed) {
    if (facts.lastCutOff)
      problems.push({
        rule: RULES.runFailed,
        text: `run ${last.id} was cut off: its process ended before the run did (finish it with: evsync resume ${last.id})`,
      });
    else if (last.status === 'failed' || last.status === 'aborted')
      problems.push({ rule: RULES.runFailed, text: `run ${last.id} ended ${last.status}${reasonOf(last)}` });
  }
  const failedRows = failedRowsProblem(rules, last);
  if (failedRows) problems.push(failedRows);
  const dropped = droppedProblem(rules, last, facts.previousCompleted);
  if (dropped) problems.push(dropped);
  if (!problems.some((problem) => problem.rule === RULES.runFailed)) {
    const missed = missedProblem(rules, facts);
    if (missed) problems.push(missed);
  }
  return problems;
}

/** The rules of `problems`, sorted and joined: equal keys are one state. */
export function stateKeyOf(problems: readonly NoticeProblem[]): string {
  return [...new Set(problems.map((problem) => problem.rule))].sort().join(',');
}

function reasonOf(run: RunRecord): string {
  const reason = run.options.aborted ?? run.options.error;
  return typeof reason === 'string' && reason !== '' ? `: ${reason}` : '';
}

function failedRowsProblem(rules: NotifyRules, run: RunRecord | undefined): NoticeProblem | undefined {
  if (rules.failed_rows === undefined || run === undefined) return undefined;
  // Rows lost for want of data (`RunRecord.lost`) were not synced either: the run exited 1.
  const notSynced = (run.counts.failed ?? 0) + (run.lost ?? 0) + (run.failedOutside ?? 0);
  if (notSynced === 0) return undefined;
  // A filtered retry's rows left failing outside it count against the rows it was given.
  const total = Object.values(run.counts).reduce((sum, n) => sum + (n ?? 0), 0) + (run.failedOutside ?? 0);
  const threshold = thresholdOf(rules.failed_rows);
  const share = total === 0 ? 0 : (notSynced * 100) / total;
  const over = 'count' in threshold ? notSynced >= threshold.count : share >= threshold.percent;
  if (!over) return undefined;
  const limit = 'count' in threshold ? `${threshold.count}` : `${threshold.percent}%`;
  const what =
    run.lost || run.failedOutside
      ? `${notSyncedNote(run)} of ${total} rows`
      : `${notSynced} of ${total} rows failed`;
  return {
    rule: RULES.failedRows,
    text: `run ${run.id}: ${what} (${share.toFixed(1)}%), at or above the threshold ${limit}`,
  };
}

function droppedProblem(
  rules: NotifyRules,
  run: RunRecord | undefined,
  previous: RunRecord | undefined,
): NoticeProblem | undefined {
  if (rules.rows_dropped === undefined || run === undefined || previous === undefined) return undefined;
  const now = rowsOf(run);
  const before = rowsOf(previous);
  if (now === undefined || before === undefined || before === 0 || now >= before) return undefined;
  const drop = ((before - now) * 100) / before;
  const limit = Number(rules.rows_dropped.slice(0, -1));
  if (drop < limit) return undefined;
  return {
    rule: RULES.rowsDropped,
    text:
      `run ${run.id} read ${now} rows from its sources, ${drop.toFixed(1)}% fewer than the ${before} ` +
      `of run ${previous.id} (threshold ${limit}%): check the export or query`,
  };
}

/** Rows read in all steps, if the run read its sources to their end. */
function rowsOf(run: RunRecord): number | undefined {
  return stepRowsOf(run)?.reduce((sum, step) => sum + step.rows, 0);
}

function missedProblem(rules: NotifyRules, facts: JobFacts): NoticeProblem | undefined {
  const graceMs = missedScheduleGraceMs(rules);
  if (graceMs === undefined || facts.schedule === undefined) return undefined;
  const since = facts.lastCompleted?.finishedAt ?? facts.last?.startedAt;
  // A job that never ran has no time to count from: its schedule is told once a run exists.
  if (since === undefined || since === null) return undefined;
  if (!isOverdue(facts.schedule, since, facts.now, graceMs)) return undefined;
  const what = facts.lastCompleted ? `its last completed run ${facts.lastCompleted.id}` : 'its last run';
  return {
    rule: RULES.missedSchedule,
    text:
      `no completed run since ${since.toISOString()} (${what}), though it is scheduled "${facts.schedule.cron}" ` +
      `(${facts.schedule.timezone}): is a worker running? (evsync status)`,
  };
}

/**
 * Whether a schedule's job is overdue: nothing completed since `since` for longer than one
 * period of the schedule (the time between its two latest fire times) plus `graceMs`.
 */
export function isOverdue(
  schedule: { cron: string; timezone: string },
  since: Date,
  now: Date,
  graceMs: number,
): boolean {
  const periodMs = periodOf(schedule, now);
  return periodMs !== undefined && now.getTime() - since.getTime() > periodMs + graceMs;
}

/** The time between the schedule's two latest fire times before `now`. */
export function periodOf(schedule: { cron: string; timezone: string }, now: Date): number | undefined {
  try {
    const expression = cronParser().parse(schedule.cron, { currentDate: now, tz: schedule.timezone });
    const latest = expression.prev().getTime();
    const before = expression.prev().getTime();
    return latest - before;
  } catch {
    return undefined;
  }
}

/**
 * cron-parser, required on first use: it and the luxon it loads took some 40 ms of every
 * start of the CLI, and only a job with a `schedule:` asks (CommonJS, so the very module an
 * `import` would give).
 */
function cronParser(): typeof CronExpressionParser {
  parser ??= (
    createRequire(import.meta.url)('cron-parser') as { CronExpressionParser: typeof CronExpressionParser }
  ).CronExpressionParser;
  return parser;
}

let parser: typeof CronExpressionParser | undefined;
