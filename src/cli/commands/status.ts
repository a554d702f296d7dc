import type { Command } from 'commander';
import { describeRates, describeWorker, type QueueStatus } from '../../distributed/queue-status.js';
import { openQueueStatusReader } from '../../distributed/queue-status-reader.js';
import { openLedger } from '../../ledger/open-ledger.js';
import { runConferenceHost } from '../../model/conference.js';
import { formatNext, requireDistributed } from './schedule.js';

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description(
      'Distributed mode: queue depth, workers, the rate limit in force, runs in progress and schedules.',
    )
    .option('--json', 'print it as JSON')
    .action(async (options: { json?: boolean }) => {
      const config = requireDistributed();
      const ledger = await openLedger();
      try {
        const reader = await openQueueStatusReader(config, ledger);
        try {
          const status = await reader.read();
          process.stdout.write(options.json ? `${JSON.stringify(status, null, 2)}\n` : formatStatus(status));
        } finally {
          await reader.close();
        }
      } finally {
        await ledger.close();
      }
    });
}

export function formatStatus(status: QueueStatus): string {
  const { jobs } = status;
  const lines = [
    `Queue ${status.prefix} on ${status.redis}`,
    `  intents: ${jobs.waiting} waiting, ${jobs.active} active, ${jobs.delayed} delayed (retrying), ${jobs.failed} failed`,
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
  ];
  return `${lines.join('\n')}\n`;
}
