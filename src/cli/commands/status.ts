import type { Command } from 'commander';
import { distributedConfigFromEnv } from '../../distributed/distributed-config.js';
import { describeRates, describeWorker, type QueueStatus } from '../../distributed/queue-status.js';
import { openQueueStatusReader } from '../../distributed/queue-status-reader.js';
import { openLedger } from '../../ledger/open-ledger.js';
import { runConferenceHost } from '../../model/conference.js';
import { textTable } from '../../report/text-table.js';
import { utcMinute } from '../../time/utc-minute.js';
import { jobOverviews, type JobOverview } from '../../sync/notify/job-overview.js';
import { formatNext } from './schedule.js';

/** `evsync status --json`: the queue's state (distributed mode) and every job's. */
export type StatusDocument = Partial<QueueStatus> & { syncJobs: JobOverview[] };

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description(
      'Each job: its last run, its last success, its next fire time, overdue, notifications not delivered; ' +
        'in distributed mode also queue depth, workers, the rate limit in force, runs in progress and schedules.',
    )
    .option('--json', 'print it as JSON')
    .action(async (options: { json?: boolean }) => {
      const config = distributedConfigFromEnv();
      const ledger = await openLedger();
      try {
        let queue: QueueStatus | undefined;
        if (config) {
          const reader = await openQueueStatusReader(config, ledger);
          try {
            queue = await reader.read();
          } finally {
            await reader.close();
          }
        }
        const jobs = await jobOverviews(ledger, queue?.schedules ?? []);
        const document: StatusDocument = { ...queue, syncJobs: jobs };
        process.stdout.write(
          options.json ? `${JSON.stringify(document, null, 2)}\n` : formatStatus(queue, jobs),
        );
      } finally {
        await ledger.close();
      }
    });
}

export function formatStatus(status: QueueStatus | undefined, jobs: readonly JobOverview[] = []): string {
  const lines = [...formatJobs(jobs), ''];
  if (status === undefined) {
    lines.push('Inline mode (no REDIS_URL): no queue, workers or schedules to show.');
    return `${lines.join('\n')}\n`;
  }
  const queued = status.jobs;
  lines.push(
    `Queue ${status.prefix} on ${status.redis}`,
    `  intents: ${queued.waiting} waiting, ${queued.active} active, ${queued.delayed} delayed (retrying), ${queued.failed} failed`,
    status.workers.length === 0 ? '  workers: none connected' : `  workers: ${status.workers.length}`,
    ...status.workers.map((worker) => `    ${describeWorker(worker)}`),
    '  rate limit in force:',
    ...describeRates(status).map((line) => `    ${line}`),
    '',
    status.runs.length === 0 ? 'No run in progress.' : 'Runs in progress:',
    ...status.runs.map(({ run, done, planned, phase, processGone, waitingForWorker }) => {
      const total = planned === undefined ? '' : ` of ${planned}`;
      const now = waitingForWorker
        ? '; waiting for a worker to take it (`evsync worker`, same REDIS_URL and DATABASE_URL)'
        : processGone
          ? '; cut off: its process ended before the run did; only a resume finishes it. ' +
            `Finish it with: evsync resume ${run.id}`
          : phase
            ? `; phase ${phase.phase}: ${phase.done} of ${phase.total}`
            : '';
      const conference = runConferenceHost(run) ?? '(conference not recorded)';
      return `  ${run.id}  ${run.jobName}  ${conference}  ${done}${total} intents done${now}`;
    }),
    '',
    status.schedules.length === 0 ? 'No schedules.' : 'Schedules:',
    ...status.schedules.map(
      (info) => `  ${info.name}  "${info.cron}" ${info.timezone}  next ${formatNext(info)}`,
    ),
  );
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
