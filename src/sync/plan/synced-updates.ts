import type { PlannedIntent } from '../../model/planned-intent.js';

/** Kinds whose updates set fields; links, schedules and check-ins carry none. */
const KINDS_WITH_FIELDS = ['user', 'event'] as const;

export type KindWithFields = (typeof KINDS_WITH_FIELDS)[number];

/**
 * Each update of `work` of a kind with fields that `wanted` picks, with its place in `work`
 * and what the ledger answers of its key: `read` is asked once per kind, for the keys of
 * all its updates (a plan's chunk at a time). Updates whose key the ledger does not answer
 * are left out. The caller may replace `work[index]` as it goes.
 */
export async function* updatesWithSynced<T>(
  work: readonly PlannedIntent[],
  wanted: (item: PlannedIntent) => boolean,
  read: (kind: KindWithFields, keys: string[]) => Promise<Map<string, T>>,
): AsyncGenerator<{ kind: KindWithFields; index: number; item: PlannedIntent; synced: T }> {
  for (const kind of KINDS_WITH_FIELDS) {
    const updates = new Map<string, number>();
    work.forEach((item, index) => {
      if (item.kind === kind && item.plannedAction === 'update' && wanted(item)) updates.set(item.key, index);
    });
    if (updates.size === 0) continue;
    for (const [key, synced] of await read(kind, [...updates.keys()])) {
      const index = updates.get(key);
      const item = index === undefined ? undefined : work[index];
      if (index !== undefined && item !== undefined) yield { kind, index, item, synced };
    }
  }
}
