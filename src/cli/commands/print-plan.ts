import { vendorFromEnv } from '../../config/env-config.js';
import { openLedger } from '../../ledger/open-ledger.js';
import type { Logger } from '../../log/logger.js';
import { planJob } from '../../sync/runs/run-job.js';
import type { LoadedJob } from '../../sync/job-file.js';
import { DeleteThresholdError } from '../../sync/plan/delete-threshold-error.js';
import type { PlanSummary } from '../../sync/plan/plan-summary.js';

/**
 * Plans a job without sending or recording anything, and prints it. Above the delete
 * threshold the plan is printed as `--force` would make it, so that the operator sees the
 * deletes that tripped it; the threshold error still ends the command (exit 3).
 */
export async function printPlan(
  job: LoadedJob,
  options: { force: boolean; logger: Logger; print: (summary: PlanSummary) => string },
): Promise<void> {
  const vendor = vendorFromEnv();
  const ledger = await openLedger();
  try {
    const plan = (force: boolean) => planJob({ ledger, logger: options.logger, vendor }, { job, force });
    try {
      process.stdout.write(options.print((await plan(options.force)).summary));
    } catch (error) {
      if (!(error instanceof DeleteThresholdError)) throw error;
      process.stdout.write(options.print((await plan(true)).summary));
      throw error;
    }
  } finally {
    await ledger.close();
  }
}
