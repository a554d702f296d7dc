import { ERROR_CATALOG, isErrorCode } from '../../errors/codes.js';
import type { NoticeEvent, NoticeProblem } from '../../ledger/ledger-notices.js';
import { runConferenceHost } from '../../model/conference.js';
import type { RunResultCounts } from '../../model/result-records.js';
import { type RunRecord, runTrigger } from '../../model/run-record.js';
// The e-mail's HTML escapes as XHTML attribute values are: quotes too.
import { escapeXmlAttribute as escape } from '../../mapping/transforms/xhtml-text.js';

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
  /** The run's results per kind and action. */
  counts: RunResultCounts;
  /** The run's first error groups, with what the code means. */
  errors: Array<{ code: string; meaning: string; message: string; count: number }>;
  /** The run's page on the dashboard, when `EVSYNC_DASHBOARD_URL` is set. */
  link: string | null;
}

/** `[evsync] nightly: run 2026… ended aborted` / `[evsync] nightly: back to normal`. */
export function noticeSubject(notice: Notice): string {
  if (notice.event === 'recovered') return `[evsync] ${notice.job}: back to normal`;
  const first = notice.problems[0]?.text ?? 'a problem';
  const more = notice.problems.length > 1 ? ` (+${notice.problems.length - 1} more)` : '';
  return `[evsync] ${notice.job}: ${first}${more}`.slice(0, 200);
}

/** The message as plain text: the e-mail's text part and the chat body. */
export function noticeText(notice: Notice): string {
  const lines = [noticeSubject(notice), ''];
  if (notice.event === 'recovered') {
    lines.push('No rule of its notify: settings holds any more.');
    if (notice.problems.length > 0) lines.push('Until now:', ...notice.problems.map((p) => `- ${p.text}`));
  } else lines.push(...notice.problems.map((p) => `- ${p.text}`));
  lines.push('');
  if (notice.conference) lines.push(`Conference: ${notice.conference}`);
  if (notice.run) {
    const { run } = notice;
    lines.push(
      `Run: ${run.id} (${run.trigger}), ${run.status}, started ${run.started_at}` +
        (run.finished_at ? `, ended ${run.finished_at}` : ''),
    );
  }
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

/** The message as HTML, for the e-mail: the same as the text, escaped. */
export function noticeHtml(notice: Notice): string {
  const rows = countLines(notice.counts)
    .map((line) => `<li>${escape(line)}</li>`)
    .join('');
  const problems = notice.problems.map((p) => `<li>${escape(p.text)}</li>`).join('');
  const errors = notice.errors
    .map(
      (e) =>
        `<li><strong>${e.count} × ${escape(e.code)}</strong>: ${escape(e.message)}<br><small>${escape(e.meaning)}</small></li>`,
    )
    .join('');
  const run = notice.run
    ? `<p>Run <code>${escape(notice.run.id)}</code> (${escape(notice.run.trigger)}), ${escape(notice.run.status)}, started ${escape(notice.run.started_at)}</p>`
    : '';
  return [
    `<h2>${escape(noticeSubject(notice))}</h2>`,
    notice.event === 'recovered' ? '<p>No rule of its notify: settings holds any more.</p>' : '',
    problems ? `<ul>${problems}</ul>` : '',
    notice.conference ? `<p>Conference: ${escape(notice.conference)}</p>` : '',
    run,
    rows ? `<p>Results:</p><ul>${rows}</ul>` : '',
    errors ? `<p>Errors:</p><ul>${errors}</ul>` : '',
    notice.link ? `<p><a href="${escape(notice.link)}">Open the run on the dashboard</a></p>` : '',
  ].join('\n');
}

/** `user: created 12, failed 3` per kind. */
function countLines(counts: RunResultCounts): string[] {
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
