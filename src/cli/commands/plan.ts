import type { Command } from 'commander';
import { rootLogger } from '../../log/logger.js';
import { loadJobFile } from '../../sync/job-file.js';
import { formatPlanSummary } from '../../sync/plan/format-plan-summary.js';
import { printPlan } from './print-plan.js';

export function registerPlanCommand(program: Command): void {
  program
    .command('plan')
    .description(
      'Show what a job would do (counts per kind and action, first examples) without sending anything.',
    )
    .argument('<job>', 'the job file (YAML)')
    .option('--force', 'plan mirror deletes even above delete_threshold')
    .option('--full', 'plan a full run: every row is sent, whatever the ledger says was synced')
    .option('--json', 'print the plan as JSON')
    .option(
      '--accounts',
      'also ask the platform which of the first 50 users to create it has already (one read each), with its name beside the source’s',
    )
    .action(
      async (
        jobPath: string,
        options: { force?: boolean; full?: boolean; json?: boolean; accounts?: boolean },
      ) => {
        const job = loadJobFile(jobPath);
        await printPlan(job, {
          force: options.force ?? false,
          accounts: options.accounts ?? false,
          full: options.full ?? false,
          logger: rootLogger().child({ job: job.name }),
          print: (summary) =>
            options.json
              ? `${JSON.stringify(summary)}\n`
              : `Plan of ${job.name} (${job.mode}):\n\n${formatPlanSummary(summary)}\n`,
        });
      },
    );
}
