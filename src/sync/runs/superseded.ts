import { CODE } from '../../errors/codes.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { runTrigger, type RunRecord } from '../../model/run-record.js';
import type { RowResult } from '../plan/sync-plan.js';

/** Triggers of runs that read the job's sources whole: a retry or an audit does not. */
const WHOLE_READS = new Set(['manual', 'schedule']);

/**
 * A run of the same job and conference, started after `run` and completed, that read the
 * sources whole (docs/sync-engine.md, "Interruptions"): it planned afresh everything the
 * source held, so `run`'s remaining plan is stale. Resumed, it would send rows taken out of
 * the source since (people refunded after a kill -9 and a re-run). Undefined when none.
 */
export async function supersededBy(
  ledger: Pick<Ledger, 'listRuns'>,
  run: RunRecord,
): Promise<RunRecord | undefined> {
  const later = await ledger.listRuns(20, {
    jobName: run.jobName,
    statuses: ['completed'],
    since: run.startedAt,
    ...(run.conference === null ? {} : { conferenceId: run.conference.id }),
  });
  return later.find((other) => other.seq > run.seq && WHOLE_READS.has(runTrigger(other)));
}

/**
 * What a resume of a superseded run does with a page of its pending intents: each is skipped
 * (`EVSYNC_RUN_SUPERSEDED`) but those `kept`, a check-in whose POST had started (its answer
 * is settled as any resume settles it).
 */
export function leaveToLaterRun<T extends PlannedIntent>(
  items: readonly T[],
  kept: (item: T) => boolean,
  later: RunRecord,
): { items: T[]; skipped: RowResult[] } {
  const skipped: RowResult[] = [];
  for (const item of items)
    if (!kept(item))
      skipped.push({
        kind: item.kind,
        key: item.key,
        action: 'skipped',
        origin: item.origin,
        errorCode: CODE.EVSYNC_RUN_SUPERSEDED,
        message:
          `Not sent: run ${later.id} of the job read the sources whole and completed since, so this run's plan is stale ` +
          '(a row taken out of the source since would come back). The job’s next run sends what the sources hold.',
        params: item.params,
      });
  return { items: items.filter(kept), skipped };
}
