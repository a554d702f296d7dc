import type { PlannedIntent, PlannedIntentRecord } from '../../ledger/ledger.js';

/**
 * A planned intent read back from the ledger. Secret params were stored redacted; they
 * are dropped rather than sent as "[redacted]" (a password is only ever sent on create,
 * and is not recommended at all, spec §4.2).
 */
export function restorePlanned(record: PlannedIntentRecord): PlannedIntent {
  const params = { ...record.params };
  for (const name of record.redactedParams) delete params[name];
  return {
    kind: record.kind,
    key: record.key,
    op: record.op,
    plannedAction: record.plannedAction,
    params,
    origin: record.origin,
    dependsOn: record.dependsOn,
    hash: record.hash,
  };
}
