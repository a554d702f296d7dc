import { ERROR_CATALOG, isErrorCode } from '../../errors/codes.js';
import type { NoticeEvent, NoticeProblem } from '../../ledger/ledger-notices.js';
import { runConferenceHost } from '../../model/conference.js';
import type { RunResultCounts } from '../../model/result-records.js';
import { type RunRecord, runTrigger } from '../../model/run-record.js';
import { zonedMinute } from '../../time/zoned-minute.js';
import type { NoticeCause } from './notice-cause.js';

/**
 * One message about a job (docs/notifications.md, "What a message says"): the webhook's JSON
 * body as it is, and what the e-mail and chat texts are made of. Names, counts and codes:
 * never a secret, nor a row's params.
 */
export interface Notice {
  event: NoticeEvent;
  job: string;
  /** The conference's host (never its key); null when the run named none. */
  conference: string | null;
  /** What the message leads with: for `recovered`, what held until now. */
  cause: NoticeCause;
  /** The zone its times are shown in (the job's schedule's, else the process's), UTC beside. */
  timezone: string;
  /** The run the message is about (the newest that ended), if the job has one. */
  run: {
    id: string;
    trigger: string;
    status: string;
    started_at: string;
    finished_at: string | null;
  } | null;
  /** What holds now (`problem`), or what held until now (`recovered`). */
  problems: NoticeProblem[];
  /** `recovered`: the runs that did not do their work meanwhile (`4 runs aborted from 22:42 to 22:46`). */
  missed: string | null;
  /** `recovered`: whether anything is left to resume or retry, and how. */
  left: string | null;
  /** The run's results per kind and action. */
  counts: RunResultCounts;
  /** The run's first error groups, causes first, skips on purpose left out, with what the code means. */
  errors: Array<{ code: string; meaning: string; message: string; count: number }>;
  /** The run's page on the dashboard, when `EVSYNC_DASHBOARD_URL` is set. */
  link: string | null;
}

/** `[evsync] nightly on conf.example.com: platform unreachable` / `…: back to normal after platform unreachable`. */
export function noticeSubject(notice: Notice): string {
  const where = notice.conference ? `${notice.job} on ${notice.conference}` : notice.job;
  const what =
    notice.event === 'recovered'
      ? `back to normal after ${notice.cause.title}`
      : `${notice.cause.title}${notice.problems.length > 1 ? ` (+${notice.problems.length - 1} more)` : ''}`;
  return `[evsync] ${where}: ${what}`.slice(0, 200);
}

/** The message as plain text: the e-mail's text part and the chat body. Cause and what to do first. */
export function noticeText(notice: Notice): string {
  const lines = [noticeSubject(notice), ''];
  if (notice.event === 'recovered') {
    lines.push(`Back to normal: no rule of its notify: settings holds any more.`);
    if (notice.missed) lines.push(`Missed meanwhile: ${notice.missed}.`);
    if (notice.left) lines.push(notice.left);
    lines.push('', `Until now (${notice.cause.title}):`, ...notice.problems.map((p) => `- ${p.text}`));
  } else {
    lines.push(`What happened: ${notice.cause.text}`);
    if (notice.cause.action) lines.push(`What to do: ${notice.cause.action}`);
    const others = notice.problems.filter((p) => p.text !== notice.cause.text);
    if (others.length > 0) lines.push('', 'Also:', ...others.map((p) => `- ${p.text}`));
  }
  lines.push('');
  if (notice.conference) lines.push(`Conference: ${notice.conference}`);
  const run = runLine(notice);
  if (run) lines.push(run);
  const counts = countLines(notice.counts);
  if (counts.length > 0) lines.push('Results:', ...counts.map((line) => `  ${line}`));
  if (notice.errors.length > 0) {
    lines.push('Errors:');
    for (const error of notice.errors)
      lines.push(`  ${error.count} × ${error.code}: ${error.message}`, `    ${error.meaning}`);
  }
  if (notice.link) lines.push('', `Dashboard: ${notice.link}`);
  return `${lines.join('\n')}\n`;
}

/** `Run 2026… (schedule), aborted, started 2026-11-28 23:43 Europe/Berlin (22:43 UTC)`. */
export function runLine(notice: Notice): string | undefined {
  const { run } = notice;
  if (!run) return undefined;
  const at = (iso: string): string => zonedMinute(new Date(iso), notice.timezone);
  return (
    `Run ${run.id} (${run.trigger}), ${run.status}, started ${at(run.started_at)}` +
    (run.finished_at ? `, ended ${at(run.finished_at)}` : '')
  );
}

/** `user: created 12, failed 3` per kind. */
export function countLines(counts: RunResultCounts): string[] {
  return Object.entries(counts).flatMap(([kind, actions]) => {
    const parts = Object.entries(actions ?? {})
      .filter(([, n]) => (n ?? 0) > 0)
      .map(([action, n]) => `${action} ${n}`);
    return parts.length === 0 ? [] : [`${kind}: ${parts.join(', ')}`];
  });
}

/** The run in brief, as the message names it. */
export function noticeRun(run: RunRecord | undefined): Notice['run'] {
  if (run === undefined) return null;
  return {
    id: run.id,
    trigger: runTrigger(run),
    status: run.status,
    started_at: run.startedAt.toISOString(),
    finished_at: run.finishedAt?.toISOString() ?? null,
  };
}

export function noticeConference(run: RunRecord | undefined): string | null {
  return run === undefined ? null : runConferenceHost(run);
}

/** What the catalog says a code means; the code itself when it is not one of ours. */
export function meaningOf(code: string): string {
  return isErrorCode(code) ? ERROR_CATALOG[code].meaning : code;
}
