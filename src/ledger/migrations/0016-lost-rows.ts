import type { Migration } from './migration.js';

// A run's rows skipped for want of data (docs/sync-engine.md, "Who is who"): dependents of a
// user that failed, is held as now another person, or is in no source; a schedule sent
// without some of its events. The run completed, yet it did not sync all it was given and
// exits 1: `lost` counts those results so that the runs list, the dashboard, `status` and
// the job's last success say so as the exit code did. NULL for a run finished before.
export const migration0016: Migration = {
  version: 16,
  name: 'lost rows of a run',
  sql: /* sql */ `
ALTER TABLE runs ADD COLUMN IF NOT EXISTS lost integer;
`,
};
