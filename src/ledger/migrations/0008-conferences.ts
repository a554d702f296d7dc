import type { Migration } from './migration.js';

// Sync state belongs to the conference it describes (docs/ledger.md, "Conferences"): a
// conference is its normalised base URL; runs name theirs; the id map and the synced
// hashes (link, schedule and check-in keys among them) are keyed by it; a job's lock is
// per conference. State written before this migration gets conference 0, "not known":
// the first run of its job afterwards takes it as its own conference's
// (`Ledger.adoptUnscopedState`), as do that job's earlier runs (`conference_id` NULL).
// The ledger's id (`ledger_id`) lets processes tell one ledger from another.
export const migration0008: Migration = {
  version: 8,
  name: 'conferences',
  sql: /* sql */ `
CREATE TABLE IF NOT EXISTS conferences (
  id          serial PRIMARY KEY,
  base_url    text NOT NULL UNIQUE,
  key_id      integer,
  created_at  timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE runs ADD COLUMN IF NOT EXISTS conference_id integer REFERENCES conferences (id);
CREATE INDEX IF NOT EXISTS runs_conference_job_seq ON runs (conference_id, job_name, seq);

ALTER TABLE id_map ADD COLUMN IF NOT EXISTS conference_id integer NOT NULL DEFAULT 0;
ALTER TABLE id_map DROP CONSTRAINT IF EXISTS id_map_pkey;
ALTER TABLE id_map ADD PRIMARY KEY (conference_id, kind, client_id);
ALTER TABLE id_map ALTER COLUMN conference_id DROP DEFAULT;

ALTER TABLE synced_hashes ADD COLUMN IF NOT EXISTS conference_id integer NOT NULL DEFAULT 0;
ALTER TABLE synced_hashes DROP CONSTRAINT IF EXISTS synced_hashes_pkey;
ALTER TABLE synced_hashes ADD PRIMARY KEY (conference_id, kind, key);
ALTER TABLE synced_hashes ALTER COLUMN conference_id DROP DEFAULT;
CREATE INDEX IF NOT EXISTS synced_hashes_run ON synced_hashes (run_id);

ALTER TABLE job_locks ADD COLUMN IF NOT EXISTS conference_id integer NOT NULL DEFAULT 0;
ALTER TABLE job_locks DROP CONSTRAINT IF EXISTS job_locks_pkey;
ALTER TABLE job_locks ADD PRIMARY KEY (conference_id, job_name);
ALTER TABLE job_locks ALTER COLUMN conference_id DROP DEFAULT;

CREATE TABLE IF NOT EXISTS ledger_identity (
  only_row  boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  ledger_id text NOT NULL
);
INSERT INTO ledger_identity (ledger_id) VALUES (md5(random()::text || clock_timestamp()::text))
ON CONFLICT DO NOTHING;
`,
};
