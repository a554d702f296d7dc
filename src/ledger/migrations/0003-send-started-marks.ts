import type { Migration } from './migration.js';

// A check-in POST cannot be looked up afterwards (§4.1), and its result may still sit in
// the result writer's buffer when the process is killed. The mark, written before the
// POST, tells a resume that the answer may have been lost, so it is not posted twice.
export const migration0003: Migration = {
  version: 3,
  name: 'send started marks',
  sql: /* sql */ `
ALTER TABLE run_intents ADD COLUMN IF NOT EXISTS send_started_at timestamptz;
`,
};
