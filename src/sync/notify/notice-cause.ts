import { CODE, ERROR_CATALOG, isErrorCode } from '../../errors/codes.js';
import type { NoticeProblem } from '../../ledger/ledger-notices.js';
import type { RunRecord } from '../../model/run-record.js';
import { PLATFORM_DOWN_CODES } from '../execute/platform-down.js';
import { SKIPPED_ON_PURPOSE } from '../plan/plan-summary.js';
import { RULES } from './job-problems.js';

/** What a message leads with (docs/notifications.md, "What a message says"). */
export interface NoticeCause {
  /** A few words for the subject: `platform unreachable`, `signature refused`, `42 rows failed`. */
  title: string;
  /** The error code behind it, when one is. */
  code: string | null;
  /** What happened, in a sentence. */
  text: string;
  /** What to do about it. */
  action: string;
}

/** An error group of a run as a message may list it. */
export interface CauseGroup {
  action: string;
  code: string;
}

/** The subject's words per platform-wide cause (`execute/platform-down.ts`). */
const PLATFORM_TITLES: Readonly<Record<string, string>> = {
  [CODE.EVSYNC_PLATFORM_UNREACHABLE]: 'platform unreachable',
  [CODE.EVSYNC_PLATFORM_UNAUTHORIZED]: 'signature refused',
  [CODE.EVSYNC_PLATFORM_SERVER]: 'platform failing (5xx)',
  [CODE.EVSYNC_PLATFORM_OUTCOME_UNKNOWN]: "platform's answers lost",
};

/** Which rule a message leads with when several hold: the one whose fix comes first. */
const RULE_ORDER = [RULES.runFailed, RULES.missedSchedule, RULES.failedRows, RULES.rowsDropped];

/**
 * Error groups, causes first: a platform-wide failure, then rows that failed, then skips
 * (their consequences, such as links skipped for a failed event). Stable within each.
 * The run page's error table and every notice list them so.
 */
export function causesFirst<G extends CauseGroup>(groups: readonly G[]): G[] {
  const rank = (group: G): number =>
    PLATFORM_DOWN_CODES.includes(group.code) ? 0 : group.action === 'failed' ? 1 : 2;
  return groups
    .map((group, index) => ({ group, index }))
    .sort((a, b) => rank(a.group) - rank(b.group) || a.index - b.index)
    .map(({ group }) => group);
}

/** Errors worth a person's eyes: skips on purpose (a `when:` condition, a refunded ticket) are never errors. */
export function errorsWorthTelling<G extends CauseGroup>(groups: readonly G[]): G[] {
  return causesFirst(
    groups.filter((group) => !(group.action === 'skipped' && SKIPPED_ON_PURPOSE.has(group.code))),
  );
}

/** The cause a problem message leads with, from the rule that holds first and the run's errors. */
export function causeOf(
  problems: readonly NoticeProblem[],
  run: RunRecord | undefined,
  groups: readonly CauseGroup[],
): NoticeCause {
  const lead = [...problems].sort((a, b) => orderOf(a.rule) - orderOf(b.rule))[0];
  const runId = run?.id ?? 'RUN';
  if (lead === undefined) return { title: 'a problem', code: null, text: 'a problem', action: '' };
  if (lead.rule === RULES.runFailed) return runFailedCause(lead, run, groups, runId);
  if (lead.rule === RULES.failedRows) {
    const failed = run?.counts.failed ?? 0;
    if (failed === 0 && (run?.lost ?? 0) > 0) {
      const lost = run?.lost ?? 0;
      return {
        title: `${lost} ${lost === 1 ? 'row' : 'rows'} lost`,
        code: groups.find((group) => group.action === 'skipped')?.code ?? null,
        text: lead.text,
        action:
          'Each skipped row names the user or event it needs (held as now another person, failed in another job, ' +
          `or in no source): fix that, then run the job again. See them: evsync report ${runId} --status skipped`,
      };
    }
    return {
      title: `${failed} ${failed === 1 ? 'row' : 'rows'} failed`,
      code: groups.find((group) => group.action === 'failed')?.code ?? null,
      text: lead.text,
      action: `Fix the rows the errors below name (in the source or the mapping), then: evsync retry ${runId}`,
    };
  }
  if (lead.rule === RULES.rowsDropped)
    return {
      title: 'source shrank',
      code: null,
      text: lead.text,
      action: 'Check the export or query the job reads: a truncated or empty export sends less.',
    };
  return {
    title: 'schedule missed',
    code: null,
    text: lead.text,
    action:
      'Start an `evsync worker` (same REDIS_URL and DATABASE_URL), or find why it stopped; ' +
      '`evsync status --check` says whether the job is on time again.',
  };
}

function runFailedCause(
  lead: NoticeProblem,
  run: RunRecord | undefined,
  groups: readonly CauseGroup[],
  runId: string,
): NoticeCause {
  if (run?.status === 'running')
    return {
      title: 'run cut off',
      code: null,
      text: lead.text,
      action: `Finish it with: evsync resume ${runId}`,
    };
  const recorded = run?.options.abortCode;
  const code =
    (typeof recorded === 'string' ? recorded : undefined) ??
    groups.find((group) => PLATFORM_DOWN_CODES.includes(group.code))?.code;
  if (code !== undefined && PLATFORM_TITLES[code] !== undefined && isErrorCode(code))
    return {
      title: PLATFORM_TITLES[code],
      code,
      text: lead.text,
      action: ERROR_CATALOG[code].action.replace(/\bRUN\b/g, runId),
    };
  const status = run?.status ?? 'failed';
  // A run that broke while it was sent recorded its cause and its next step
  // (`execute/abort-on-failure.ts`): the CLI said the same words when it exited 3.
  const nextStep = run?.options.nextStep;
  const fromSource = code !== undefined && isErrorCode(code) && ERROR_CATALOG[code].layer === 'sources';
  return {
    title: fromSource ? 'source failed' : status === 'failed' ? 'run failed' : `run ${status}`,
    code: code ?? null,
    text: lead.text,
    action:
      typeof nextStep === 'string'
        ? nextStep
        : status === 'aborted'
          ? `Fix the cause above, then finish it with: evsync resume ${runId}`
          : 'Fix the cause above (a job file or a source it names); the next run tells whether it is back.',
  };
}

function orderOf(rule: string): number {
  const index = (RULE_ORDER as readonly string[]).indexOf(rule);
  return index === -1 ? RULE_ORDER.length : index;
}
