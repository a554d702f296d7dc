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
 * the source since (people refunded after a kill -9 and a re-run). For a stopped retry, a
 * later completed retry of the same run that asked for no fewer rows is one too: it read
 * those rows again from the source, and the stopped one's values would overwrite them.
 * Undefined when none.
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
  return later.find(
    (other) => other.seq > run.seq && (WHOLE_READS.has(runTrigger(other)) || retriesNoLess(other, run)),
  );
}

/** What a later run did that makes a stopped one's plan stale, for its messages. */
export function supersededHow(later: RunRecord): string {
  return runTrigger(later) === 'retry' ? 'retried the same rows from the source' : 'read the sources whole';
}

interface StoredRetryFilter {
  since?: string;
  kinds?: string[];
  keys?: string[];
  resendUnknown?: boolean;
}

/** Whether `later` retried the run `stopped` retried, with a filter that takes all `stopped`'s rows. */
function retriesNoLess(later: RunRecord, stopped: RunRecord): boolean {
  const base = stopped.options.retryOf;
  if (typeof base !== 'string' || later.options.retryOf !== base) return false;
  const wide = (later.options.filter ?? {}) as StoredRetryFilter;
  const narrow = (stopped.options.filter ?? {}) as StoredRetryFilter;
  const takes = (all: readonly string[] | undefined, some: readonly string[] | undefined): boolean =>
    !all?.length || (some !== undefined && some.length > 0 && some.every((one) => all.includes(one)));
  return (
    (wide.since === undefined ||
      (narrow.since !== undefined && Date.parse(wide.since) <= Date.parse(narrow.since))) &&
    takes(wide.kinds, narrow.kinds) &&
    takes(wide.keys, narrow.keys) &&
    (narrow.resendUnknown !== true || wide.resendUnknown === true)
  );
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
          `Not sent: run ${later.id} of the job ${supersededHow(later)} and completed since, so this run's plan is stale ` +
          '(a row taken out of the source since would come back). The job’s next run sends what the sources hold.',
        params: item.params,
      });
  return { items: items.filter(kept), skipped };
}
