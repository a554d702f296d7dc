import type { Migration } from './migration.js';

// Three changes, one migration (see docs/ledger.md):
// - `runs.seq`: "a later run" is decided by a sequence, not by `started_at` (two runs
//   created in the same instant have no order by time). Existing runs are numbered in
//   their old order.
// - `job_locks`: who holds a job's lock (the lock itself is an advisory lock or, on the
//   embedded ledger, the folder lock); read only to name the holder in a message.
// - Hashes of params with a secret (a password) were plain SHA-256 over the params, which
//   lets whoever holds the ledger test password guesses offline. They are keyed now, and
//   the key never enters the ledger; the old ones are erased, so each such row is sent
//   once more (as an update) by the next run of its job.
export const migration0004: Migration = {
  version: 4,
  name: 'run order, job locks, keyed hashes',
  sql: /* sql */ `
CREATE SEQUENCE IF NOT EXISTS runs_seq_seq;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS seq bigint;
UPDATE runs SET seq = o.n
FROM (SELECT id, row_number() OVER (ORDER BY started_at, id) AS n FROM runs) o
WHERE runs.id = o.id;
SELECT setval('runs_seq_seq', coalesce((SELECT max(seq) FROM runs), 0) + 1, false);
ALTER TABLE runs ALTER COLUMN seq SET DEFAULT nextval('runs_seq_seq');
ALTER TABLE runs ALTER COLUMN seq SET NOT NULL;
ALTER SEQUENCE runs_seq_seq OWNED BY runs.seq;
CREATE UNIQUE INDEX IF NOT EXISTS runs_seq ON runs (seq);
CREATE INDEX IF NOT EXISTS runs_job_seq ON runs (job_name, seq);

CREATE TABLE IF NOT EXISTS job_locks (
  job_name  text PRIMARY KEY,
  run_id    text,
  pid       integer NOT NULL,
  host      text NOT NULL,
  locked_at timestamptz NOT NULL DEFAULT now()
);

UPDATE run_intents SET hash = 'erased-unkeyed' WHERE redacted_params <> '[]'::jsonb;
UPDATE synced_hashes s SET hash = 'erased-unkeyed'
WHERE EXISTS (SELECT 1 FROM run_intents ri WHERE ri.kind = s.kind AND ri.key = s.key AND ri.redacted_params <> '[]'::jsonb);
`,
};
