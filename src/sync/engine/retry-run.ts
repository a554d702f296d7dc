import { unknownRunError } from '../../ledger/ledger-error.js';
import type { IntentKind } from '../../mapping/intent.js';
import type { EngineDeps } from './engine-deps.js';
import { executeAndFinish } from './execute-and-finish.js';
import { restorePlanned } from './restore-params.js';
import type { RunSummary } from './run-summary.js';

export interface RetryFilter {
  /** Only intents that failed at or after this time. */
  since?: Date;
  kinds?: IntentKind[];
  /** Keys (client_ids for users and events). */
  keys?: string[];
}

/**
 * Re-sends the intents that failed in a run, as a new run (`retryOf` in its options) so
 * that the first run's history stays as it was. Rows that failed in mapping were never
 * planned and are not retried: fix the source and run the job again.
 */
export async function retryRun(
  deps: EngineDeps,
  runId: string,
  filter: RetryFilter = {},
): Promise<RunSummary | undefined> {
  const { ledger } = deps;
  const base = await ledger.getRun(runId);
  if (!base) throw unknownRunError(runId);
  const failed = (
    await ledger.failedIntents(runId, {
      ...(filter.since ? { since: filter.since } : {}),
      ...(filter.kinds?.length ? { kinds: filter.kinds } : {}),
      ...(filter.keys?.length ? { keys: filter.keys } : {}),
    })
  ).map(restorePlanned);
  if (failed.length === 0) return undefined;
  const run = await ledger.createRun({
    jobName: base.jobName,
    mode: 'upsert',
    options: {
      retryOf: runId,
      filter: { since: filter.since?.toISOString(), kinds: filter.kinds, keys: filter.keys },
    },
  });
  await ledger.recordPlannedIntents(run.id, failed);
  return executeAndFinish(deps, { runId: run.id, work: failed, unchanged: [] });
}
