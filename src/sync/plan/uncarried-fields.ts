import type { Ledger } from '../../ledger/ledger.js';
import { isSecretName, REDACTED } from '../../log/redaction.js';
import type { IntentKind } from '../../model/intent.js';
import type { FlatParams } from '../../model/params.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { hashIntent } from './params-hash.js';
import { updatesWithSynced } from './synced-updates.js';

export interface UncarriedInput {
  /** The last-synced hash of each key, per kind: what the diff compared with. */
  hashes: ReadonlyMap<IntentKind, ReadonlyMap<string, string>>;
  /** The key of hashes of params with a secret (see `hashIntent`). */
  hashKey?: Uint8Array | undefined;
  /** A full run sends the row even when nothing but the unsaid fields differed. */
  full: boolean;
}

/**
 * A field the source's format cannot carry (`PlannedIntent.uncarried`: the bio of a pretalx
 * XML) keeps the value last synced, as if the source had said it again. So a job switched
 * from pretalx's JSON to its XML finds each speaker unchanged (their hash, with the bio last
 * synced, is the JSON run's) and sends nothing; a speaker whose other fields changed is
 * updated with the bio as last synced, so the platform keeps it, and the ledger's synced
 * params and hash stay whole (a switch back finds the row unchanged, and a bio later
 * emptied in the JSON is still cleared). Values of secret params are never read back (the
 * ledger holds them redacted). Runs before `addClearedFields`. See docs/sync-engine.md,
 * "Cleared fields".
 */
export async function keepUncarriedFields(
  ledger: Pick<Ledger, 'syncedParams'>,
  plan: { work: PlannedIntent[]; unchanged: PlannedIntent[] },
  input: UncarriedInput,
): Promise<void> {
  let moved = false;
  const updates = updatesWithSynced(
    plan.work,
    (item) => (item.uncarried?.length ?? 0) > 0,
    (kind, keys) => ledger.syncedParams(kind, keys),
  );
  for await (const { kind, index, item, synced: last } of updates) {
    const kept = keptValues(item, last);
    if (kept === undefined) continue;
    const params = { ...item.params, ...kept };
    const hash = hashIntent(item.op, params, input.hashKey, item.aliases);
    const unchanged = !input.full && hash === input.hashes.get(kind)?.get(item.key);
    plan.work[index] = { ...item, params, hash, ...(unchanged ? { plannedAction: 'unchanged' } : {}) };
    moved ||= unchanged;
  }
  if (!moved) return;
  const work = plan.work.filter((item) => item.plannedAction !== 'unchanged');
  plan.unchanged.push(...plan.work.filter((item) => item.plannedAction === 'unchanged'));
  plan.work.splice(0, plan.work.length, ...work);
}

/** The last-synced values of the item's unsaid params, or undefined when none has one. */
function keptValues(item: PlannedIntent, last: FlatParams): FlatParams | undefined {
  let kept: FlatParams | undefined;
  for (const name of item.uncarried ?? []) {
    const value = last[name];
    if (value === undefined || value === '' || value === REDACTED || isSecretName(name)) continue;
    if ((item.params[name] ?? '') !== '') continue;
    (kept ??= {})[name] = value;
  }
  return kept;
}
