import type { Ledger } from '../../ledger/ledger.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { updatesWithSynced } from './synced-updates.js';

/**
 * A field synced before and empty in the source now is cleared by the update: the plan
 * adds it to the update's params with an empty value (the platform client's clearing rules
 * turn that into what the platform clears it with, `platform/write-params/clear-params.ts`). The
 * names synced before come from the ledger (`Ledger.syncedParamNames`); the hash stays the
 * one of the source's params, so the next run finds the row unchanged. A create never has
 * one: it sends no empty value. A field the source's format cannot carry
 * (`PlannedIntent.uncarried`: pretalx's XML has no biographies) is not empty in the source,
 * only unsaid: it is never cleared. See docs/sync-engine.md, "Cleared fields".
 */
export async function addClearedFields(
  ledger: Pick<Ledger, 'syncedParamNames'>,
  work: PlannedIntent[],
): Promise<void> {
  const updates = updatesWithSynced(
    work,
    () => true,
    (kind, keys) => ledger.syncedParamNames(kind, keys),
  );
  for await (const { index, item, synced: names } of updates) {
    const gone = names.filter(
      (name) =>
        name !== 'client_id' && (item.params[name] ?? '') === '' && item.uncarried?.includes(name) !== true,
    );
    if (gone.length === 0) continue;
    const params = { ...item.params };
    for (const name of gone) params[name] = '';
    work[index] = { ...item, params, hash: item.hash };
  }
}
