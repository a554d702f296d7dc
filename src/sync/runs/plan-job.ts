import { loadIdCache } from '../processors/id-cache.js';
import { sharedAccountsOf } from './one-account.js';
import { streamCollected } from '../collect/collect-intents.js';
import { Erasures } from '../collect/erasures.js';
import { checkMinRows } from '../collect/min-rows.js';
import type { EngineDeps } from '../execute/engine-deps.js';
import type { PlanSummary } from '../plan/plan-summary.js';
import { StreamPlanner } from '../plan/stream-planner.js';
import type { RunJobOptions } from './run-job.js';
import { ChunkBeingRead, type ReadChunk } from './plan-chunks.js';
import { PublishSchedule } from './publish-schedule.js';
import { AccountPreview, type AccountLookUp } from '../plan/account-preview.js';
import { IdentityPreview } from '../plan/identity-preview.js';

/**
 * Reads the sources and plans against the ledger, without sending or recording anything:
 * what `evsync plan` and `run --dry-run` print. It streams as a run does (docs/sync-engine.md,
 * "Memory"): chunk by chunk, with the run's planner, so that it says what the run will do
 * and holds no more than the run holds, plus the dependents whose user or event the
 * sources have not yielded yet.
 */
export async function planJob(
  deps: Pick<EngineDeps, 'ledger' | 'logger'> & {
    vendor: string;
    /** See `BuildPlanInput.hashKey`. */
    hashKey?: Uint8Array | undefined;
    /** Asks the platform who has an e-mail, for the accounts a run would find (`AccountPreview`). */
    lookUpAccount?: AccountLookUp | undefined;
  },
  options: Pick<RunJobOptions, 'job' | 'force' | 'full'>,
): Promise<PlanSummary> {
  const { ledger, logger } = deps;
  const { job } = options;
  // As a run checks it, so that `plan` and `run` agree (`--force` goes on in both).
  await checkMinRows({ ledger, logger }, job, options.force ?? false);
  const ids = await loadIdCache(ledger);
  const planner = new StreamPlanner(
    ledger,
    {
      jobName: job.name,
      mode: job.mode,
      threshold: job.delete_threshold,
      force: options.force ?? false,
      ...(deps.hashKey ? { hashKey: deps.hashKey } : {}),
      ...(options.full ? { full: true } : {}),
    },
    ids,
    { dependents: true, holds: await ledger.holds().list() },
  );
  const preview = deps.lookUpAccount ? new AccountPreview(deps.lookUpAccount, deps.vendor) : undefined;
  const refused = new IdentityPreview(ledger, deps.vendor);
  const reading = new ChunkBeingRead();
  const erasures = await Erasures.load(ledger, deps.vendor);
  const schedule = new PublishSchedule(planner.synced);
  const plan = async (chunk: ReadChunk): Promise<void> => {
    // Planned whether or not a preview notes it (`preview?.note(…)` would skip its argument).
    const planned = await planner.planChunk(chunk.intents, chunk.rows);
    preview?.note(planned.work);
    await refused.note(planned.work);
  };
  for await (const read of streamCollected(job, {
    vendor: deps.vendor,
    erasures,
    onMerge: (report) => planner.mergedPeople(report),
    onIdentity: (lines) => planner.identity(lines),
    ...(logger ? { logger } : {}),
    // As a run maps them, so that the plan says what the run will do with each row.
    syncedHash: planner.syncedHash,
    sharedAccounts: sharedAccountsOf(ledger),
  })) {
    // As a run, which reads a row ahead: the chunk before this row ends once this row is
    // mapped, and the synced hashes are published (or not) at the same rows; the chunks
    // before are planned by then, this one not yet. So the rows it checks are this plan's.
    if (reading.full(schedule.readingAhead)) {
      const chunk = reading.take()!;
      if (!schedule.passesAhead()) await schedule.planned();
      await plan(chunk);
    }
    reading.add(read);
  }
  // The last chunk, as a run's, is planned with no publish before it.
  const last = reading.take();
  if (last) await plan(last);
  planner.failedRows();
  await planner.finish();
  const summary = planner.summary();
  const accounts = [...refused.lines(), ...((await preview?.lines()) ?? [])];
  if (accounts.length > 0) summary.identity = [...(summary.identity ?? []), ...accounts];
  if (refused.count > 0) summary.refusedPeople = refused.count;
  return options.full ? { ...summary, full: true } : summary;
}
