import { conferenceUrlFor, platformConfigFor, platformVariables } from '../../config/conference.js';
import { PlatformClient } from '../../platform/platform-client.js';
import { signingKeyFromEnv, vendorFromEnv } from '../../config/env-config.js';
import { adoptUnscopedState } from '../../sync/runs/conference-scope.js';
import { deriveKey } from '../../platform/derive-key.js';
import { HASH_KEY_PURPOSE } from '../../sync/plan/params-hash.js';
import { openLedger } from '../../ledger/open-ledger.js';
import type { Logger } from '../../log/logger.js';
import { planJob } from '../../sync/runs/plan-job.js';
import type { LoadedJob } from '../../sync/job-file.js';
import { DeleteThresholdError } from '../../sync/plan/delete-threshold-error.js';
import type { PlanSummary } from '../../sync/plan/plan-summary.js';

/** A conference no state belongs to: what a plan without a base URL compares with. */
const NO_CONFERENCE_YET = { id: -1, baseUrl: '', keyId: null };

/**
 * Plans a job without sending or recording anything, and prints it. Above the delete
 * threshold the plan is printed as `--force` would make it, so that the operator sees the
 * deletes that tripped it; the threshold error still ends the command (exit 3).
 */
export async function printPlan(
  job: LoadedJob,
  options: {
    force: boolean;
    /** The plan of a full run (`--full`). @defaultValue `false` */
    full?: boolean;
    /** Ask the platform who has the new users' e-mails (`--accounts`, `AccountPreview`). @defaultValue `false` */
    accounts?: boolean;
    logger: Logger;
    print: (summary: PlanSummary) => string;
  },
): Promise<PlanSummary> {
  const vendor = vendorFromEnv();
  // Without the signing key, rows with a password cannot be compared with what was synced:
  // they are planned as changed (see hashIntent).
  const variables = platformVariables(job.platform);
  const signingKey = signingKeyFromEnv({ EVSYNC_SIGNING_KEY: process.env[variables.signing_key_env] });
  const hashKey = signingKey === undefined ? undefined : deriveKey(signingKey, HASH_KEY_PURPOSE);
  // Without a conference's URL there is nothing synced to compare with: the plan is the one
  // a first run would make (a run itself refuses to start without one).
  const baseUrl = process.env[variables.base_url_env] ? conferenceUrlFor(job.platform) : undefined;
  if (baseUrl === undefined) {
    process.stderr.write(
      `evsync: ${variables.base_url_env} is not set, so this plan compares with nothing synced: ` +
        "it is a first run's. Set it to the conference's base URL to see what a run there would send.\n",
    );
  }
  // Asked to (`--accounts`), with the conference and its key, the plan asks who has the new
  // users' e-mails (`AccountPreview`): a bounded preview, one signed read each. Without it a
  // plan calls nothing.
  const client =
    !options.accounts || baseUrl === undefined || signingKey === undefined
      ? undefined
      : PlatformClient.fromConfig(platformConfigFor(job.platform), {
          rateLimit: { requestsPerSecond: job.rate.per_second, concurrency: 1 },
          logger: options.logger,
        });
  const opened = await openLedger();
  try {
    // The plan is the one the job's next run would make: against this conference's state,
    // the job's state from before conferences were recorded taken as the run would take it.
    const ledger = opened.forConference(
      baseUrl === undefined ? NO_CONFERENCE_YET : await opened.conferenceFor(baseUrl, null),
    );
    if (baseUrl !== undefined) await adoptUnscopedState(ledger, job.name, options.logger);
    const plan = (force: boolean) =>
      planJob(
        {
          ledger,
          logger: options.logger,
          vendor,
          hashKey,
          ...(client ? { lookUpAccount: (email: string) => client.users.getByEmail(email) } : {}),
        },
        { job, force, ...(options.full ? { full: true } : {}) },
      );
    try {
      const summary = await plan(options.force);
      process.stdout.write(options.print(summary));
      return summary;
    } catch (error) {
      if (!(error instanceof DeleteThresholdError)) throw error;
      process.stdout.write(options.print(await plan(true)));
      throw error;
    }
  } finally {
    await opened.close();
    await client?.close();
  }
}
