import type { Migration } from './migration.js';

// The dashboard (docs/dashboard.md) lists a run's failed and skipped results a page at a
// time, groups them by error, and a retry reads them again. A partial index holds just
// those rows, in `seq` order per run: a page of the 1 % that failed out of 100,000 results
// is an index range, and the successes that make up most writes pay nothing for it.
export const migration0007: Migration = {
  version: 7,
  name: 'failed results index',
  sql: /* sql */ `
CREATE INDEX IF NOT EXISTS intent_results_unsuccessful ON intent_results (run_id, seq)
  WHERE action IN ('failed', 'skipped');
`,
};
