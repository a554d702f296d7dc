import { textTable } from '../../report/text-table.js';
import type { JobOverview } from '../../sync/notify/job-overview.js';
import { utcMinute } from '../../time/utc-minute.js';

/** `evsync status` without a queue (inline mode): the jobs, and why there is nothing more. */
export function inlineStatus(jobs: readonly JobOverview[]): string {
  const lines = [...formatJobs(jobs), ''];
  lines.push('Inline mode (no REDIS_URL): no queue, workers or schedules to show.');
  return `${lines.join('\n')}\n`;
}

/** The per-job table and, under it, what each job's notifications say. */
export function formatJobs(jobs: readonly JobOverview[]): string[] {
  if (jobs.length === 0) return ['No job has run or is scheduled yet.'];
  const time = (iso: string | null | undefined): string => (iso ? utcMinute(new Date(iso)) : '-');
  const rows = jobs.map((job) => [
    job.job,
    job.lastRun
      ? `${job.lastRun.shownStatus}${failedNote(job.lastRun.counts.failed)} ${time(job.lastRun.finishedAt ?? job.lastRun.startedAt)} (${job.lastRun.trigger})`
      : '-',
    job.lastSuccess ? time(job.lastSuccess.finishedAt) : 'never',
    job.next ? time(job.next) : '-',
    job.overdue ? 'OVERDUE' : '',
  ]);
  const lines = [
    'Jobs:',
    ...textTable(['job', 'last run', 'last success', 'next', ''], rows).map((l) => `  ${l}`),
  ];
  for (const job of jobs) {
    if (job.notify === null) continue;
    if (job.notify.state === 'problem')
      lines.push(
        `  ${job.job}: told since ${time(job.notify.since)}: ${job.notify.problems.map((p) => p.text).join('; ')}`,
      );
    for (const failed of job.notify.undelivered)
      lines.push(
        `  ${job.job}: a ${failed.event === 'recovered' ? '"back to normal"' : 'problem'} message was NOT delivered ` +
          `(${failed.channel}, ${failed.attempts} attempt${failed.attempts === 1 ? '' : 's'}, ${time(failed.at)}): ${failed.error ?? 'unknown error'}`,
      );
  }
  if (jobs.some((job) => job.overdue))
    lines.push(
      '  OVERDUE: scheduled, and no completed run for longer than its period plus grace: is a worker running?',
    );
  return lines;
}

function failedNote(failed: number | undefined): string {
  return failed ? `, ${failed} failed` : '';
}
