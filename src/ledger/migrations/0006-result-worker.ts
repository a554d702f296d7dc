import type { Migration } from './migration.js';

// Distributed mode (docs/distributed.md): each result names the worker process that sent
// its intent (`host:pid`), so that a report can tell which machine did what; a scheduled
// run that found the job's previous run still going is recorded as `skipped`.
export const migration0006: Migration = {
  version: 6,
  name: 'result worker, skipped runs',
  sql: /* sql */ `
ALTER TABLE intent_results ADD COLUMN IF NOT EXISTS worker text;
ALTER TABLE runs DROP CONSTRAINT IF EXISTS runs_status_check;
ALTER TABLE runs ADD CONSTRAINT runs_status_check
  CHECK (status IN ('running', 'completed', 'failed', 'interrupted', 'aborted', 'skipped'));
`,
};
