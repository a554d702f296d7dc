import type { PlannedIntent } from '../../ledger/ledger.js';
import type { IdCache } from './id-cache.js';
import type { CallCounter, ProcessOutcome } from './process-outcome.js';
import type { SyncPlatform } from './sync-platform.js';

export interface ProcessorContext {
  platform: SyncPlatform;
  ids: IdCache;
  /**
   * Resolves once the ledger durably notes that this intent's call is starting. Awaited
   * before a call that cannot be repeated or looked up (a check-in POST), so a resume
   * after a crash holds it back instead of posting it twice.
   */
  markSendStarted: (item: Pick<PlannedIntent, 'kind' | 'key'>) => Promise<void>;
}

/**
 * Does one intent, idempotently: sending the same intent twice, or after a lost answer,
 * leaves the platform as sending it once. Throws only for failures; the caller turns them
 * into `failed` results.
 */
export type Processor = (
  item: PlannedIntent,
  context: ProcessorContext,
  counter: CallCounter,
) => Promise<ProcessOutcome>;

/** Whether the intent removes something (a mirror delete, or a source row saying "remove"). */
export function isRemoval(item: Pick<PlannedIntent, 'op' | 'plannedAction'>): boolean {
  return item.op === 'remove' || item.plannedAction === 'delete';
}

/** Params without `client_id`, for calls that name the object by its platform id. */
export function withoutClientId(params: Record<string, string>): Record<string, string> {
  const { client_id: _ignored, ...rest } = params;
  return rest;
}
