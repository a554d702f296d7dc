import type { Migration } from './migration.js';

// Notifications (docs/notifications.md): `job_notices` holds, per job, the `notify:` settings
// its last run carried (names of environment variables, never their values) and the
// problems last told, so that a message goes out once per change of state whichever
// process sees it (`state_key` is compared and set in one statement). `notice_deliveries`
// is one row per message and channel: what `status` and the dashboard show when one could
// not be delivered. `runs_job_seq` serves the per-job summary (`Ledger.jobRuns`).
// `run_call_seconds` counts a run's platform calls per second and outcome, and marks its
// rate-limit pauses, stops and resumes: the run page's chart of the failure day.
export const migration0012: Migration = {
  version: 12,
  name: 'job notices and call seconds',
  sql: /* sql */ `
CREATE TABLE IF NOT EXISTS job_notices (
  job_name    text PRIMARY KEY,
  settings    jsonb NOT NULL,
  problems    jsonb NOT NULL DEFAULT '[]'::jsonb,
  state_key   text NOT NULL DEFAULT '',
  changed_at  timestamptz NOT NULL DEFAULT now(),
  run_id      text
);

CREATE TABLE IF NOT EXISTS notice_deliveries (
  id          bigserial PRIMARY KEY,
  job_name    text NOT NULL,
  run_id      text,
  event       text NOT NULL,
  channel     text NOT NULL,
  status      text NOT NULL,
  attempts    integer NOT NULL DEFAULT 0,
  error       text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX IF NOT EXISTS notice_deliveries_job ON notice_deliveries (job_name, id DESC);

CREATE INDEX IF NOT EXISTS runs_job_seq ON runs (job_name, seq);

CREATE TABLE IF NOT EXISTS run_call_seconds (
  run_id   text NOT NULL,
  at       timestamptz NOT NULL,
  outcome  text NOT NULL,
  calls    integer NOT NULL,
  PRIMARY KEY (run_id, at, outcome)
);
`,
};
