import type { Ledger } from '../ledger/ledger.js';
import type { PlannedIntentRecord } from '../model/planned-intent.js';
import { coalescedCalls } from '../sync/execute/coalesced-calls.js';
import type { IntentJob } from './intent-job.js';

type IntentRef = Pick<IntentJob, 'runId' | 'kind' | 'key'>;

/**
 * A job's planned intent, if it has no result yet, read from the ledger. Jobs taken while
 * a read is under way share the next one (one query per run, by its keys). Jobs reach a
 * worker one at a time as its slots free, so at 8 in flight a read serves one or two of
 * them (docs/distributed.md, figures); more at a higher concurrency.
 */
export function pendingReads(
  ledger: Pick<Ledger, 'pendingIntents'>,
): (job: IntentRef) => Promise<PlannedIntentRecord | undefined> {
  return coalescedCalls(async (jobs: IntentRef[]) => {
    const found = new Map<string, PlannedIntentRecord>();
    const byRun = new Map<string, IntentRef[]>();
    for (const job of jobs) {
      const ofRun = byRun.get(job.runId);
      if (ofRun === undefined) byRun.set(job.runId, [job]);
      else ofRun.push(job);
    }
    for (const [runId, ofRun] of byRun) {
      const kinds = [...new Set(ofRun.map((job) => job.kind))];
      const keys = [...new Set(ofRun.map((job) => job.key))];
      // Kinds × keys may match an intent no job asked for: the lookup below leaves it out.
      for (const record of await ledger.pendingIntents(runId, { kinds, keys }))
        found.set(idOf({ runId, kind: record.kind, key: record.key }), record);
    }
    return jobs.map((job) => found.get(idOf(job)));
  });
}

const idOf = (job: IntentRef): string => `${job.runId}\u0000${job.kind}\u0000${job.key}`;
