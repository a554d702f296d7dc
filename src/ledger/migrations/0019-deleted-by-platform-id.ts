import type { Migration } from './migration.js';

// The user deletes of a run found by the platform id they removed: a merged person's other
// client_id keeps its id-map row after the delete (the delete is recorded under the first
// key), and a row that reuses it is checked against the person the deleted account held
// before any call (docs/ledger.md, "Removed keys"). Partial, as migration 17's: deletes are
// few next to the other results.
export const migration0019: Migration = {
  version: 19,
  name: 'deletes by platform id',
  sql: /* sql */ `
CREATE INDEX IF NOT EXISTS intent_results_deleted_ids ON intent_results (kind, platform_id)
  WHERE action = 'deleted' AND platform_id IS NOT NULL;
`,
};
