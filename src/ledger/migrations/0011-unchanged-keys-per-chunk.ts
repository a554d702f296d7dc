import type { Migration } from './migration.js';

// A nightly run is mostly rows whose content was synced already (docs/ledger.md, "What a
// run stores"): one result row each cost about 600 bytes and a write per row, every night.
// Their keys are kept instead as one row per planned chunk and kind, the keys in an array
// that PostgreSQL stores compressed; `n` counts them, so that a run's counts never read
// the arrays. Synced hashes point at the result that wrote them (`run_id`), which the
// synced-param lookups now read instead of the planned intent: a completed run's planned
// intents that ended in a success are then only what a resume needed, and go.
export const migration0011: Migration = {
  version: 11,
  name: 'unchanged keys per chunk',
  sql: /* sql */ `
CREATE TABLE IF NOT EXISTS run_unchanged (
  seq         bigserial PRIMARY KEY,
  run_id      text NOT NULL,
  kind        text NOT NULL,
  n           integer NOT NULL,
  keys        text[] NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS run_unchanged_run ON run_unchanged (run_id, kind, seq);
`,
};
