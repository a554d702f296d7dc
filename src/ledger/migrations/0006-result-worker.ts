import type { Migration } from './migration.js';

// In distributed mode each result names the worker process that sent its intent
// (`host:pid`), so that a report can tell which machine did what (docs/distributed.md).
export const migration0006: Migration = {
  version: 6,
  name: 'result worker',
  sql: /* sql */ `
ALTER TABLE intent_results ADD COLUMN IF NOT EXISTS worker text;
`,
};
