import type { Command } from 'commander';
import { vendorFromEnv } from '../../config/env-config.js';
import { rootLogger } from '../../log/logger.js';
import { openLedger } from '../../ledger/open-ledger.js';
import { loadJobFile } from '../../sync/job-file.js';
import { planJob } from '../../sync/engine/run-job.js';
import { formatPlanSummary } from '../../sync/plan/plan-summary.js';

export function registerPlanCommand(program: Command): void {
  program
    .command('plan')
    .description(
      'Show what a job would do (counts per kind and action, first examples) without sending anything.',
    )
    .argument('<job>', 'the job file (YAML)')
    .option('--force', 'plan mirror deletes even above delete_threshold')
    .option('--json', 'print the plan as JSON')
    .action(async (jobPath: string, options: { force?: boolean; json?: boolean }) => {
      const job = loadJobFile(jobPath);
      const vendor = vendorFromEnv();
      const ledger = await openLedger();
      try {
        const { summary } = await planJob(
          {
            ledger,
            logger: rootLogger().child({ job: job.name }),
            vendor,
          },
          { job, force: options.force ?? false },
        );
        process.stdout.write(
          options.json
            ? `${JSON.stringify(summary)}\n`
            : `Plan of ${job.name} (${job.mode}):\n\n${formatPlanSummary(summary)}\n`,
        );
      } finally {
        await ledger.close();
      }
    });
}
