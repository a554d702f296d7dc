import type { Migration } from './migration.js';

// The foreign keys from results and planned intents to `runs` cost a trigger call and a
// row lock per row: on the embedded ledger a fifth of the time of a 1,000-result batch.
// The ledger checks a batch's run ids once instead (SqlLedger.requireRuns); runs are never
// deleted, so a run id once seen stays valid. Whoever adds run pruning deletes its rows.
export const migration0002: Migration = {
  version: 2,
  name: 'run references checked per batch',
  sql: /* sql */ `
ALTER TABLE intent_results DROP CONSTRAINT IF EXISTS intent_results_run_id_fkey;
ALTER TABLE run_intents DROP CONSTRAINT IF EXISTS run_intents_run_id_fkey;
`,
};
