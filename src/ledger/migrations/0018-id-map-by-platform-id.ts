import type { Migration } from './migration.js';

// The other client_ids of a key's platform user, found by its platform id: a merged person's
// keys share one, and a key with nothing synced of its own is checked against what was sent
// under another (docs/sync-engine.md, "Who is who"). A probe per key of a chunk.
export const migration0018: Migration = {
  version: 18,
  name: 'id map by platform id',
  sql: /* sql */ `
CREATE INDEX IF NOT EXISTS id_map_platform ON id_map (conference_id, kind, platform_id);
`,
};
