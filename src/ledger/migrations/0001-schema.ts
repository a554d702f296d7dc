import type { Migration } from './migration.js';

// Kept as a TS string module (not a .sql file) so it is found both from src/ (tsx,
// vitest) and from the compiled dist/ without a copy step. Plain PostgreSQL: the same
// text runs on PGlite and on a server.
export const migration0001: Migration = {
  version: 1,
  name: 'schema',
  sql: /* sql */ `
CREATE TABLE runs (
  id          text PRIMARY KEY,
  job_name    text NOT NULL,
  mode        text NOT NULL CHECK (mode IN ('upsert', 'mirror')),
  status      text NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'interrupted', 'aborted')),
  started_at  timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  counts      jsonb NOT NULL DEFAULT '{}',
  options     jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX runs_started_at ON runs (started_at DESC, id DESC);

-- The planned work of a run, stored before any call: resume re-enqueues what has no result.
CREATE TABLE run_intents (
  seq             bigserial PRIMARY KEY,
  run_id          text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  kind            text NOT NULL,
  key             text NOT NULL,
  op              text NOT NULL CHECK (op IN ('upsert', 'remove')),
  planned_action  text NOT NULL,
  params          jsonb NOT NULL DEFAULT '{}',
  redacted_params jsonb NOT NULL DEFAULT '[]',
  origin          jsonb,
  depends_on      jsonb NOT NULL DEFAULT '[]',
  hash            text NOT NULL,
  UNIQUE (run_id, kind, key)
);

-- One final result per (run, kind, key).
CREATE TABLE intent_results (
  seq           bigserial PRIMARY KEY,
  run_id        text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  kind          text NOT NULL,
  key           text NOT NULL,
  action        text NOT NULL
                CHECK (action IN ('created', 'attached', 'updated', 'unchanged', 'deleted', 'skipped', 'failed')),
  origin_source text,
  origin_row    integer,
  origin_line   integer,
  platform_id   bigint,
  http_status   integer,
  error_code    text,
  error_message text,
  attempts      integer NOT NULL DEFAULT 1,
  duration_ms   integer NOT NULL DEFAULT 0,
  params        jsonb NOT NULL DEFAULT '{}',
  recorded_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (run_id, kind, key)
);

CREATE TABLE id_map (
  kind        text NOT NULL,
  client_id   text NOT NULL,
  platform_id bigint NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, client_id)
);

-- Written only after a success, so a row that failed is sent again next run.
CREATE TABLE synced_hashes (
  kind      text NOT NULL,
  key       text NOT NULL,
  hash      text NOT NULL,
  run_id    text NOT NULL,
  synced_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, key)
);
`,
};
