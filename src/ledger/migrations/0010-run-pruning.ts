import type { Migration } from './migration.js';

// Retention (docs/ledger.md, "Retention"): `evsync prune` removes old runs' per-row data and
// keeps the run itself with its counts. `prune` is written when a prune of the run starts
// (the rule, and the run's counts per kind, which its results no longer give) and completed
// with what was removed; `pruned_at` once its rows are gone. A run with `prune` and no
// `pruned_at` was cut off mid-prune: the next prune finishes it, and no resume or retry
// reads it meanwhile.
export const migration0010: Migration = {
  version: 10,
  name: 'run pruning',
  sql: /* sql */ `
ALTER TABLE runs ADD COLUMN IF NOT EXISTS pruned_at timestamptz;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS prune jsonb;
`,
};
