import type { Command } from 'commander';
import { distributedConfigFromEnv } from '../../distributed/distributed-config.js';
import type { QueueStatus } from '../../distributed/queue-status.js';
import { describeLanes, describeWorker } from '../../distributed/queue-status-text.js';
import { openLedger } from '../../ledger/open-ledger.js';
import { runConferenceHost } from '../../model/conference.js';
import { notSyncedNote } from '../../model/run-record.js';
import { HELD_KEYS_HEADING, heldKeyWords, heldKeys, type HeldKey } from '../../sync/phases/held-keys.js';
import { textTable } from '../../report/text-table.js';
import { processZone, wallMinute } from '../../time/zoned-minute.js';
import { describeMissed } from '../../sync/notify/missed-runs.js';
import { checkJobs } from './status-check.js';
import { EXIT } from '../exit-codes.js';
import { jobOverviews, type JobOverview } from '../../sync/notify/job-overview.js';

/** `evsync status --json`: the queue's state (distributed mode), every job's, and the keys held. */
export type StatusDocument = Partial<QueueStatus> & { syncJobs: JobOverview[]; heldKeys: HeldKey[] };

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description(
      'Each job: its last run, its last success, its next fire time, overdue, notifications not delivered; ' +
        'in distributed mode also queue depth, workers, each conference key’s lane with its rate, runs in progress and schedules.',
    )
    .option('--json', 'print it as JSON')
    .option(
      '--check',
      'print one line and exit 1 when a job is overdue, failing, or a notice was not delivered (for cron and monitoring)',
    )
    .action(async (options: { json?: boolean; check?: boolean }) => {
      const config = distributedConfigFromEnv();
      const ledger = await openLedger();
      try {
        let queue: QueueStatus | undefined;
        if (config) {
          // Lazy: only distributed mode talks to the queue (bullmq, ioredis): a second of every
          // inline `status` otherwise.
          const { openQueueStatusReader } = await import('../../distributed/queue-status-reader.js');
          const reader = await openQueueStatusReader(config, ledger);
          try {
            queue = await reader.read();
          } finally {
            await reader.close();
          }
        }
        const jobs = await jobOverviews(ledger, queue?.schedules ?? []);
        if (options.check === true) {
          const check = checkJobs(jobs, displayZone(jobs));
          process.stdout.write(`${check.line}\n`);
          if (!check.ok) process.exitCode = EXIT.someRowsFailed;
          return;
        }
        const held = await heldKeys(ledger);
        const document: StatusDocument = { ...queue, syncJobs: jobs, heldKeys: held };
        process.stdout.write(
          options.json
            ? `${JSON.stringify(document, null, 2)}\n`
            : formatStatus(queue, jobs, displayZone(jobs), new Date(), held),
        );
      } finally {
        await ledger.close();
      }
    });
}

/**
 * The one zone `status` shows times in: the schedules' when they all share one, else this
 * process's (`TZ`). Mixing the schedules' zone and UTC made a night hard to read (issue #40).
 */
export function displayZone(jobs: readonly JobOverview[], now = processZone()): string {
  const zones = new Set(jobs.map((job) => job.timezone).filter((zone): zone is string => zone !== null));
  return zones.size === 1 ? [...zones][0]! : now;
}

export function formatStatus(
  status: QueueStatus | undefined,
  jobs: readonly JobOverview[] = [],
  zone = displayZone(jobs),
  now = new Date(),
  held: readonly HeldKey[] = [],
): string {
  const lines = [`Times in ${zone}.`, ...formatJobs(jobs, zone, now), ...formatHeld(held, zone), ''];
  const at = (date: Date | undefined): string => (date ? wallMinute(date, zone) : 'not planned');
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
    '  lanes (one per conference key):',
    ...describeLanes(status).map((line) => `    ${line}`),
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
      (info) => `  ${info.name}  "${info.cron}" (${info.timezone})  next ${at(info.next)}`,
    ),
  );
  return `${lines.join('\n')}\n`;
}

/** The per-job table and, under it, what happened since each job's last success and what its notifications say. */
export function formatJobs(jobs: readonly JobOverview[], zone: string, now = new Date()): string[] {
  if (jobs.length === 0) return ['No job has run or is scheduled yet.'];
  const time = (iso: string | null | undefined): string => (iso ? wallMinute(new Date(iso), zone) : '-');
  // A job name run against several conferences is one line each, named by its conference.
  const shared = new Set(jobs.map((job) => job.job).filter((name, i, all) => all.indexOf(name) !== i));
  const nameOf = (job: JobOverview): string =>
    shared.has(job.job) ? `${job.job} on ${job.conference ?? '(conference not recorded)'}` : job.job;
  const rows = jobs.map((job) => [
    nameOf(job),
    job.lastRun
      ? `${job.lastRun.shownStatus}${failedNote(job.lastRun)} ${time(job.lastRun.finishedAt ?? job.lastRun.startedAt)} (${job.lastRun.trigger})`
      : '-',
    job.lastSuccess ? time(job.lastSuccess.finishedAt) : 'never',
    nextOf(job, now, time),
    job.overdue ? 'OVERDUE' : '',
  ]);
  const lines = [
    'Jobs:',
    ...textTable(['job', 'last run', 'last success', 'next', ''], rows).map((l) => `  ${l}`),
  ];
  for (const job of jobs) {
    const missed = job.sinceSuccess;
    if (missed !== null)
      lines.push(
        `  ${nameOf(job)}: since ${job.lastSuccess ? 'its last success' : 'its first run'}, ` +
          describeMissed({ ...missed, first: new Date(missed.first), last: new Date(missed.last) }, zone),
      );
    if (job.notify === null) continue;
    if (job.notify.state === 'problem')
      lines.push(
        `  ${nameOf(job)}: told since ${time(job.notify.since)}: ${job.notify.problems.map((p) => p.text).join('; ')}`,
      );
    for (const failed of job.notify.undelivered)
      lines.push(
        `  ${nameOf(job)}: a ${failed.event === 'recovered' ? '"back to normal"' : 'problem'} message was NOT delivered ` +
          `(${failed.channel}, ${failed.attempts} attempt${failed.attempts === 1 ? '' : 's'}, ${time(failed.at)}): ${failed.error ?? 'unknown error'}`,
      );
  }
  if (jobs.some((job) => job.overdue))
    lines.push(
      '  OVERDUE: scheduled, and no completed run for longer than its period plus grace: is a worker running?',
    );
  return lines;
}

/** The held keys under the jobs, each with the run and job that refused it: where to fix it. */
export function formatHeld(held: readonly HeldKey[], zone: string): string[] {
  if (held.length === 0) return [];
  return [
    `${HELD_KEYS_HEADING}:`,
    ...held.map((hold) => {
      const words = heldKeyWords(hold);
      return (
        `  ${words.key}: ${words.refusedBy} ${wallMinute(new Date(hold.heldAt), zone)} (${words.code}); ` +
        `see: evsync report ${hold.runId} --status failed --search ${words.search}`
      );
    }),
  ];
}

/** The next fire time; one already past is a tick nobody took (no worker), not a time to wait for. */
function nextOf(job: JobOverview, now: Date, time: (iso: string | null) => string): string {
  if (job.next === null) return '-';
  return new Date(job.next).getTime() < now.getTime() ? `missed ${time(job.next)}` : time(job.next);
}

function failedNote(run: NonNullable<JobOverview['lastRun']>): string {
  const notSynced = notSyncedNote(run);
  return notSynced === '' ? '' : `, ${notSynced}`;
}
