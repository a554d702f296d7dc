import { describeRates, describeWorker, type QueueStatus } from '../../distributed/queue-status.js';
import { runConferenceHost } from '../../model/conference.js';
import type { JobOverview } from '../../sync/notify/job-overview.js';
import { formatNext } from './schedule.js';
import { formatJobs, inlineStatus } from './status-jobs.js';

/**
 * `evsync status` as text. Apart from the command, with the distributed modules it names:
 * inline mode loads neither (status-jobs.ts), a second of every start on this machine.
 */
export function formatStatus(status: QueueStatus | undefined, jobs: readonly JobOverview[] = []): string {
  if (status === undefined) return inlineStatus(jobs);
  const lines = [...formatJobs(jobs), ''];
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
