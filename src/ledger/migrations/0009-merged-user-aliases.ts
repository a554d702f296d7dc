import type { Migration } from './migration.js';

// A user merged from rows of several steps carries the person's other client_ids
// (docs/sync-engine.md, "One person, many sources"): kept with the planned intent, so that a
// resume or a distributed worker records them in the id map as the run would have.
export const migration0009: Migration = {
  version: 9,
  name: 'merged user aliases',
  sql: /* sql */ `
ALTER TABLE run_intents ADD COLUMN IF NOT EXISTS aliases jsonb;
`,
};
