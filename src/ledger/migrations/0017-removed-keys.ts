import type { Migration } from './migration.js';

// The keys a run removed from a conference (a mirror delete, a retire), found by key: a
// create under such a key is checked against the person last sent under it before any call
// (docs/ledger.md, "Removed keys"). Partial: removals are few next to the other results, so
// the index stays small, and a run's creates probe it a chunk at a time.
export const migration0017: Migration = {
  version: 17,
  name: 'removed keys by key',
  sql: /* sql */ `
CREATE INDEX IF NOT EXISTS intent_results_removed ON intent_results (kind, key)
  WHERE action IN ('deleted', 'retired');
`,
};
