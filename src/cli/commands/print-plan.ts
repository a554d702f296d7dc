import { signingKeyFromEnv, vendorFromEnv } from '../../config/env-config.js';
import { deriveKey } from '../../platform/derive-key.js';
import { HASH_KEY_PURPOSE } from '../../sync/plan/params-hash.js';
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
  // Without the signing key, rows with a password cannot be compared with what was synced:
  // they are planned as changed (see hashIntent).
  const signingKey = signingKeyFromEnv();
  const hashKey = signingKey === undefined ? undefined : deriveKey(signingKey, HASH_KEY_PURPOSE);
  const ledger = await openLedger();
  try {
    const plan = (force: boolean) =>
      planJob({ ledger, logger: options.logger, vendor, hashKey }, { job, force });
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
