import type { Migration } from './migration.js';

// Erasure (docs/privacy.md): `erasure_key` is the ledger's own random key for the keyed
// hashes of tombstones (made on first use, never the signing key). A tombstone holds the
// hashes of an erased person's e-mails and client_ids in one conference, so that later runs
// suppress them; `lifted_at` is set by `forget --undo`. No personal data is kept in clear.
export const migration0014: Migration = {
  version: 14,
  name: 'erasure tombstones',
  sql: /* sql */ `
CREATE TABLE IF NOT EXISTS erasure_key (
  only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  key        text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS tombstones (
  id            bigserial PRIMARY KEY,
  conference_id integer NOT NULL,
  hashes        text[] NOT NULL,
  reason        text,
  erased_by     text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  removed       jsonb NOT NULL DEFAULT '{}'::jsonb,
  lifted_at     timestamptz,
  lifted_by     text
);
CREATE INDEX IF NOT EXISTS tombstones_hashes ON tombstones USING gin (hashes);
`,
};
