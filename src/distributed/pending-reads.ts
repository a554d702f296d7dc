import type { Ledger } from '../ledger/ledger.js';
import type { IntentKind } from '../model/intent.js';
import type { PlannedIntentRecord } from '../model/planned-intent.js';
import { coalescedCalls } from '../sync/execute/coalesced-calls.js';
import type { IntentJob } from './intent-job.js';

type IntentRef = Pick<IntentJob, 'runId' | 'epoch' | 'kind' | 'key'>;

/** Intents read ahead with each read: the queue hands out a phase's jobs in plan order. */
const READ_AHEAD = 64;
/**
 * How long an intent read ahead may stand for the ledger: well under the jobs' lock (10 s).
 * Intents read ahead are not checked for a result (`PendingFilter.ahead`), and need not be:
 * a pass enqueues an intent once, and only one still pending after any earlier pass of the
 * run has settled (`settleEarlierPass`), so within a pass its result is written only by the
 * worker its job is handed to; a job handed again after its worker stalled comes later
 * than this, and is read afresh.
 */
const FRESH_MS = 3_000;
/** Intents read ahead kept at most (the oldest go first). */
const KEPT = 4_096;
/** Read fresh each time: their send mark (`markSendStarted`) must be the ledger's latest. */
const NEVER_AHEAD: ReadonlySet<IntentKind> = new Set(['check_in']);

/**
 * A job's planned intent, if it has no result yet, read from the ledger. Each read also
 * takes the next intents of the same kinds (`PendingFilter.ahead`): the queue hands a phase
 * out in plan order, so the jobs this worker takes next are mostly among them, and most
 * jobs cost no query (docs/distributed.md, figures). Jobs taken while a read is under way
 * share the next one (one query per run and pass). An intent read ahead serves only a job
 * of the same pass (`epoch`), once, within `FRESH_MS`.
 */
export function pendingReads(
  ledger: Pick<Ledger, 'pendingIntents'>,
  now: () => number = () => performance.now(),
): (job: IntentRef) => Promise<PlannedIntentRecord | undefined> {
  const readAhead = new Map<string, { record: PlannedIntentRecord; at: number }>();

  const read = coalescedCalls(async (jobs: IntentRef[]) => {
    const found = new Map<string, PlannedIntentRecord>();
    const byPass = new Map<string, IntentRef[]>();
    for (const job of jobs) {
      const pass = `${job.runId}\u0000${job.epoch}`;
      const ofPass = byPass.get(pass);
      if (ofPass === undefined) byPass.set(pass, [job]);
      else ofPass.push(job);
    }
    for (const ofPass of byPass.values()) {
      const { runId, epoch } = ofPass[0]!;
      const kinds = [...new Set(ofPass.map((job) => job.kind))];
      const keys = [...new Set(ofPass.map((job) => job.key))];
      const ahead = kinds.some((kind) => NEVER_AHEAD.has(kind)) ? 0 : READ_AHEAD;
      const asked = new Set(ofPass.map(idOf));
      const at = now();
      // Kinds × keys may match an intent no job asked for: kept as read ahead, like the rest.
      for (const record of await ledger.pendingIntents(runId, { kinds, keys, ahead })) {
        const id = idOf({ runId, epoch, kind: record.kind, key: record.key });
        if (asked.has(id)) found.set(id, record);
        else readAhead.set(id, { record, at });
      }
    }
    while (readAhead.size > KEPT) readAhead.delete(readAhead.keys().next().value!);
    return jobs.map((job) => found.get(idOf(job)));
  });

  return (job) => {
    const id = idOf(job);
    const early = readAhead.get(id);
    if (early === undefined) return read(job);
    readAhead.delete(id);
    return now() - early.at < FRESH_MS ? Promise.resolve(early.record) : read(job);
  };
}

const idOf = (job: IntentRef): string => `${job.runId}\u0000${job.epoch}\u0000${job.kind}\u0000${job.key}`;
