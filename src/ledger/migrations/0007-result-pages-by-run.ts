import type { Migration } from './migration.js';

// The dashboard (docs/dashboard.md) pages through a run's results in `seq` order, filtered
// or searched, and groups its failures:
// - `(run_id, seq)`: a page of a run is an index range whatever the planner's statistics
//   say. Without it, a run just written (not analyzed yet) was read whole through the
//   `(run_id, kind, key)` index and sorted, for each page of 50.
// - a partial index of the failed and skipped results only: a page of the 1 % that failed
//   out of 100,000 results is a range of it, and errors are grouped from it.
export const migration0007: Migration = {
  version: 7,
  name: 'result pages by run',
  sql: /* sql */ `
CREATE INDEX IF NOT EXISTS intent_results_run_seq ON intent_results (run_id, seq);
CREATE INDEX IF NOT EXISTS intent_results_unsuccessful ON intent_results (run_id, seq)
  WHERE action IN ('failed', 'skipped');
`,
};
