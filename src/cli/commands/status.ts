import type { Command } from 'commander';
import { distributedConfigFromEnv } from '../../distributed/distributed-config.js';
import type { QueueStatus } from '../../distributed/queue-status.js';
import { openLedger } from '../../ledger/open-ledger.js';
import { jobOverviews, type JobOverview } from '../../sync/notify/job-overview.js';
import { inlineStatus } from './status-jobs.js';

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
          // Lazy: only distributed mode talks to the queue (bullmq, ioredis).
          const { openQueueStatusReader } = await import('../../distributed/queue-status-reader.js');
          const reader = await openQueueStatusReader(config, ledger);
          try {
            queue = await reader.read();
          } finally {
            await reader.close();
          }
        }
        const jobs = await jobOverviews(ledger, queue?.schedules ?? []);
        const document: StatusDocument = { ...queue, syncJobs: jobs };
        const text = options.json
          ? `${JSON.stringify(document, null, 2)}\n`
          : queue === undefined
            ? inlineStatus(jobs)
            : (await import('./status-format.js')).formatStatus(queue, jobs);
        process.stdout.write(text);
      } finally {
        await ledger.close();
      }
    });
}
