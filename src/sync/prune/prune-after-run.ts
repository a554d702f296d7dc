import { retentionFromEnv } from '../../config/env-config.js';
import { describeRetention, retentionOf } from '../../config/retention.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { Logger } from '../../log/logger.js';
import { messageOf } from '../../errors/evsync-error.js';
import type { LoadedJob } from '../job-file.js';
import { pruneRuns } from './prune-runs.js';

/**
 * After a scheduled run: prunes the job's runs as its retention says (the job file's, else
 * the environment's; none, nothing). A failure is logged and changes nothing of the run's
 * outcome: the next scheduled run, or `evsync prune`, tries again.
 */
export async function pruneAfterScheduledRun(
  ledger: Ledger,
  job: Pick<LoadedJob, 'name' | 'retention'>,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  try {
    const retention = job.retention ? retentionOf(job.retention) : retentionFromEnv(env);
    if (retention === undefined) return;
    const report = await pruneRuns(ledger, { jobName: job.name, retention, logger });
    if (report.runs.length > 0)
      logger.info(
        {
          pruned: report.runs.map((run) => run.runId),
          removed: report.totals.tables,
          bytes: report.totals.bytes,
          retention: describeRetention(retention),
        },
        'pruned old runs of the job',
      );
  } catch (error) {
    logger.warn(
      { err: error },
      `pruning the job's old runs failed (${messageOf(error)}); the run's outcome stands, the next prune tries again`,
    );
  }
}
