import { CODE } from '../../errors/codes.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import type { RowResult } from '../plan/sync-plan.js';

/**
 * Takes out of what a resume or a retry of `runId` would send every intent that a later
 * run of the job ended with a success or a delete (`Ledger.handledLaterOf`): that run read
 * newer content, which this one would overwrite. Each gets a `skipped` result saying so.
 * The ledger is asked about these items' keys only: a resume asks page by page.
 */
export async function leaveHandledLater<T extends PlannedIntent>(
  ledger: Pick<Ledger, 'handledLaterOf'>,
  runId: string,
  items: readonly T[],
): Promise<{ items: T[]; skipped: RowResult[] }> {
  if (items.length === 0) return { items: [], skipped: [] };
  const keysOf = new Map<T['kind'], string[]>();
  for (const item of items) {
    const keys = keysOf.get(item.kind);
    if (keys === undefined) keysOf.set(item.kind, [item.key]);
    else keys.push(item.key);
  }
  const later = new Map<T['kind'], Set<string>>();
  for (const [kind, keys] of keysOf) later.set(kind, await ledger.handledLaterOf(runId, kind, keys));
  const kept: T[] = [];
  const skipped: RowResult[] = [];
  for (const item of items) {
    if (later.get(item.kind)?.has(item.key) !== true) kept.push(item);
    else
      skipped.push({
        kind: item.kind,
        key: item.key,
        action: 'skipped',
        origin: item.origin,
        errorCode: CODE.EVSYNC_SYNCED_SINCE,
        message:
          'Not sent: a later run of the job has synced it since, and this one would send older content over it.',
        params: item.params,
      });
  }
  return { items: kept, skipped };
}
