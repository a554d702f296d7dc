import type { JobLock } from '../../ledger/ledger.js';
import type { LoadedJob } from '../job-file.js';
import { HASH_KEY_PURPOSE } from '../plan/params-hash.js';
import { describeThreshold } from '../plan/mirror-deletes.js';
import { withParentLosses } from '../plan/plan-summary.js';
import { PARENT_LOST } from '../phases/dependency-gate.js';
import { checkSteps } from '../collect/collect-intents.js';
import { checkMinRows } from '../collect/min-rows.js';
import type { EngineDeps } from '../execute/engine-deps.js';
import { executeAndFinish } from '../execute/execute-and-finish.js';
import { sourcesCutShort } from '../../model/run-record.js';
import { streamedPlan } from './streamed-plan.js';
import { depsForPlatform } from './conference-scope.js';
import { whileClaimed, whileJobLocked } from './run-claim.js';
import type { RunSummary } from '../execute/run-summary.js';
import { keepNoticeSettings } from '../notify/review-job.js';

export interface RunJobOptions {
  job: LoadedJob;
  /** Mirror deletes above the threshold go ahead. */
  force?: boolean;
  /**
   * Send every row, whatever the ledger says was synced (`--full`, docs/sync-engine.md "Full
   * runs"): what was removed on the platform by hand comes back. Kept in the run's options.
   * @defaultValue `false`
   */
  full?: boolean;
  /** What started the run, kept with it. @defaultValue `manual` */
  trigger?: RunTrigger;
  /** The run this one runs again (the dashboard's "run the job again"), kept with it. */
  rerunOf?: string;
}

/**
 * What started a run: a person (or script), a schedule (docs/distributed.md), or
 * `evsync audit --repair` (docs/audit.md).
 */
export type RunTrigger = 'manual' | 'schedule' | 'audit';

/**
 * One run of a job: plan, record the plan (so that a `kill -9` loses nothing), send what
 * changed phase by phase, record a result for every intent. The job's lock is held from
 * before the plan reads the ledger to the end: see `whileJobLocked`.
 */
export async function runJob(engine: EngineDeps, options: RunJobOptions): Promise<RunSummary> {
  const deps = await depsForPlatform(engine);
  return whileJobLocked(deps, options.job.name, (lock) => runLocked(deps, options, lock));
}

async function runLocked(deps: EngineDeps, options: RunJobOptions, lock: JobLock): Promise<RunSummary> {
  const { ledger, logger } = deps;
  const { job } = options;
  await checkSteps(job, { vendor: deps.platform.vendor, ...(logger ? { logger } : {}) });
  // Before the run exists: a run stopped for too few rows has no plan a resume could send.
  await checkMinRows({ ledger, logger }, job, options.force ?? false);
  await keepNoticeSettings(ledger, job);
  const run = await ledger.createRun({
    jobName: job.name,
    mode: job.mode,
    options: {
      file: job.file,
      rate: job.rate,
      delete_threshold: describeThreshold(job.delete_threshold),
      force: options.force ?? false,
      trigger: options.trigger ?? 'manual',
      // Only when set, so that the options of ordinary runs stay as they were.
      ...(options.full ? { full: true } : {}),
      // Names of variables, never their values: a resume reads the same ones.
      ...(job.platform ? { platform: job.platform } : {}),
      // The schedule's zone: what its notices and `evsync status` show times in, UTC beside.
      ...(job.schedule ? { timezone: job.schedule.timezone } : {}),
      ...(options.rerunOf === undefined ? {} : { rerunOf: options.rerunOf }),
      // The job file's retention, as written: what `evsync prune` applies to the job (docs/ledger.md).
      ...(job.retention ? { retention: job.retention } : {}),
      // `planned` is added once the sources are read: a resume before then knows the plan was cut short.
      planStreamed: true,
    },
  });
  await lock.holding(run.id);
  logger?.info({ runId: run.id }, 'run started');
  const plan = streamedPlan(deps, {
    job,
    run,
    plan: {
      jobName: job.name,
      mode: job.mode,
      threshold: job.delete_threshold,
      force: options.force ?? false,
      ...(deps.platform.deriveKey ? { hashKey: deps.platform.deriveKey(HASH_KEY_PURPOSE) } : {}),
      ...(options.full ? { full: true } : {}),
    },
  });
  const result = withNextStepWhenCutShort(
    await whileClaimed(ledger, run.id, () =>
      executeAndFinish(deps, { runId: run.id, work: [], unchanged: [], stream: plan.stream }),
    ),
    // A full run cut short is run again as one: a plain run would skip the rows it never sent.
    `evsync run ${job.file}${options.full ? ' --full' : ''}`,
  );
  logger?.info({ runId: run.id, status: result.run.status, totals: result.totals }, 'run finished');
  // The run is finished (`aborted`, its upserts sent); the caller reports the refusal as before.
  const refused = plan.refused();
  if (refused) throw refused;
  const planned = plan.summary();
  if (planned === undefined) return result;
  const summary = options.full ? { ...planned, full: true as const } : planned;
  if ((result.totals.skipped ?? 0) > 0) {
    const missing = await ledger.resultCounts(run.id, { errorCodes: [...PARENT_LOST] });
    summary.losses = withParentLosses(summary.losses, result.counts, missing);
  }
  return { ...result, plan: summary };
}

/**
 * A run stopped before its sources were read to the end (the plan records `planned` once
 * they are): a resume sends only what was planned, and then says so. Running the job again
 * sends the rest, and nothing twice (what was sent is synced), so that is the advice.
 */
function withNextStepWhenCutShort(summary: RunSummary, runAgain: string): RunSummary {
  if (!summary.stopped || summary.nextStep || !sourcesCutShort(summary.run)) return summary;
  return {
    ...summary,
    nextStep:
      'Its sources were not read to the end, so a resume would send only what was planned: ' +
      `run the job again (${runAgain}); it sends the rest, and nothing twice.`,
  };
}
