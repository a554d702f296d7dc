import { CODE, type ErrorCode } from '../../errors/codes.js';
import { KeyRegistry } from '../../mapping/key-registry.js';
import type { Intent } from '../../model/intent.js';
import type { PlannedIntent, PlannedIntentRecord } from '../../model/planned-intent.js';
import type { RunRecord } from '../../model/run-record.js';
import type { EngineDeps } from '../execute/engine-deps.js';
import { HASH_KEY_PURPOSE, hashIntent } from '../plan/params-hash.js';
import { StreamPlanner } from '../plan/stream-planner.js';
import { tailWord } from '../plan/synced-hashes.js';
import type { RowResult } from '../plan/sync-plan.js';
import { loadIdCache, ownCopy, ownCopyOf } from '../processors/id-cache.js';
import { PLAN_CHUNK } from './plan-chunks.js';
import { intentId, readJobAgain } from './restore-params.js';

/** A page of the failed intents a retry sends, split by what the job's source says of each now. */
export interface RefusedRowsSorted {
  /**
   * Sent as the run planned them: their row is as it was, or they come from no row (a
   * mirror delete), or are check-ins (held to their own rules on lost answers), or the
   * source could not be read again.
   */
  asPlanned: PlannedIntentRecord[];
  /** Their row changed in the source since: planned again from the row as it is now. */
  changed: PlannedIntent[];
  /** Their row now holds what the ledger last synced: nothing to send. */
  unchanged: PlannedIntent[];
  /** Their row is no longer in the source, or now fails the mapping: not sent, and why. */
  notSent: RowResult[];
}

export interface RefusedRowsNow {
  sort(records: readonly PlannedIntentRecord[]): RefusedRowsSorted;
}

/**
 * What a retry keeps per failed intent in its key registry (`retryClaimed`): 32 bits of its
 * planned hash, never 0 (an empty slot), so that the source can be read again keeping only
 * the rows that changed.
 */
export function plannedMark(hash: string): number {
  return tailWord(hash, 1) > 0 ? tailWord(hash, 1) : 1;
}

/**
 * The failed intents of a run as the job's source has their rows now (docs/sync-engine.md,
 * "Retry"): an organiser reads why the platform refused a row, fixes it in the export, and
 * retries. Sent as planned, the row would fail again with the old value, or overwrite a
 * newer one. The source is read once. A row whose hash is still the planned one (its
 * {@link plannedMark}) is noted in a key registry; a changed row is kept whole, and planned
 * against the ledger as a run plans a chunk, reading the ledger for its keys only.
 */
export async function refusedRowsNow(
  deps: EngineDeps,
  base: RunRecord,
  /** The failed intents' `intentId`s, each with its {@link plannedMark}. */
  failed: KeyRegistry,
): Promise<RefusedRowsNow> {
  const hashKey = deps.platform.deriveKey?.(HASH_KEY_PURPOSE);
  const same = new KeyRegistry();
  const changed = new Map<string, Intent>();
  const stillFailing = new Map<string, RowResult>();
  const read = await readJobAgain(deps, base, 'for the rows the platform refused', (row) => {
    for (const intent of row.intents) {
      const id = intentId(intent);
      const mark = failed.firstRow(id);
      if (mark === undefined) continue;
      // A later step's row of a key takes the earlier one's place, as in a run (a user's
      // repeat never comes: `UsersApart`).
      if (plannedMark(hashIntent(intent.op, intent.params, hashKey, intent.aliases)) !== mark)
        changed.set(ownCopy(id), ownCopyOf(intent));
      else {
        changed.delete(id);
        same.add(id, 1);
      }
    }
    for (const result of row.rowResults)
      if (failed.firstRow(intentId(result)) !== undefined)
        stillFailing.set(ownCopy(intentId(result)), ownCopyOf(result));
  });
  // Unread, the source says nothing new: the intents go as planned, as before this read.
  if ('problem' in read) return { sort: (records) => ({ ...NONE, asPlanned: [...records] }) };
  const work = new Map<string, PlannedIntent>();
  const unchanged = new Map<string, PlannedIntent>();
  if (changed.size > 0) {
    const planner = new StreamPlanner(
      deps.ledger,
      {
        jobName: base.jobName,
        mode: 'upsert',
        threshold: read.job.delete_threshold,
        force: false,
        ...(hashKey ? { hashKey } : {}),
      },
      await loadIdCache(deps.ledger),
    );
    const intents = [...changed.values()];
    for (let at = 0; at < intents.length; at += PLAN_CHUNK) {
      const chunk = await planner.planChunk(intents.slice(at, at + PLAN_CHUNK), []);
      for (const item of chunk.work) work.set(intentId(item), item);
      for (const item of chunk.unchanged) unchanged.set(intentId(item), item);
    }
  }
  return {
    sort(records) {
      const sorted: RefusedRowsSorted = { asPlanned: [], changed: [], unchanged: [], notSent: [] };
      for (const record of records) {
        const id = intentId(record);
        const now = work.get(id) ?? unchanged.get(id);
        if (record.origin === null || record.kind === 'check_in' || now?.hash === record.hash)
          sorted.asPlanned.push(record);
        else if (now !== undefined) (work.has(id) ? sorted.changed : sorted.unchanged).push(now);
        else if (same.firstRow(id) !== undefined) sorted.asPlanned.push(record);
        else sorted.notSent.push(stillFailing.get(id) ?? goneRow(record));
      }
      return sorted;
    },
  };
}

const NONE: RefusedRowsSorted = { asPlanned: [], changed: [], unchanged: [], notSent: [] };

/**
 * A failed user row that the job's sources now merge into another key's user (one person
 * in several steps, docs/sync-engine.md, "One person, many sources"): that user is sent,
 * with this key among its client_ids, and this row is not sent on its own.
 */
export function mergedRow(record: RetriedRecord, into: string): RowResult {
  return notRetried(
    record,
    CODE.EVSYNC_RETRY_ROW_MERGED,
    `Not sent on its own: this row (${record.kind} ${record.key}), which failed in run ${record.runId}, is now one person with ${record.kind} ${into} in the job's sources; ` +
      `the retry sends ${into}, with ${record.key} among its client_ids.`,
  );
}

/**
 * A failed row the source no longer has by its key (the organiser took it out, or re-keyed
 * it): refused by the platform, or failed in the mapping, in the run retried.
 */
export function goneRow(record: RetriedRecord): RowResult {
  return notRetried(
    record,
    CODE.EVSYNC_RETRY_ROW_GONE,
    `Not sent: the job's source no longer has this row (${record.kind} ${record.key}), which failed in run ${record.runId}. ` +
      'If its client_id changed there, the job’s next run sends it under the new one.',
  );
}

/** A failed row of the run retried, what this retry records for it: skipped, and why. */
type RetriedRecord = Pick<PlannedIntentRecord, 'kind' | 'key' | 'origin' | 'runId' | 'params'>;

function notRetried(record: RetriedRecord, errorCode: ErrorCode, message: string): RowResult {
  return {
    kind: record.kind,
    key: record.key,
    action: 'skipped',
    origin: record.origin,
    errorCode,
    message,
    params: record.params,
  };
}
