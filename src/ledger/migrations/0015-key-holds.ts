import type { Migration } from './migration.js';

// Identity holds (docs/sync-engine.md, "Who is who"): a user key that a run refused because
// its row now names another person than the one its platform account is. Until the key's
// user syncs again, no job sends a link, schedule, check-in or contact of the key to that
// account. One row per held key and conference; the reason is the refusal's code and the
// run that refused it, never the names (those stay in that run's result, which `forget`
// scrubs).
export const migration0015: Migration = {
  version: 15,
  name: 'key holds',
  sql: /* sql */ `
CREATE TABLE IF NOT EXISTS key_holds (
  conference_id integer NOT NULL,
  kind          text NOT NULL,
  client_id     text NOT NULL,
  run_id        text NOT NULL,
  job_name      text NOT NULL,
  error_code    text NOT NULL,
  held_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conference_id, kind, client_id)
);
`,
};
