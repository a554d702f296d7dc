import type { Migration } from './migration.js';

// A job's notification state belongs to the conference its runs write to, as its lock and
// its sync state do (docs/notifications.md, "One job name, several conferences"): one job
// name run against conference A (failing) and B (healthy) told A's team three problems
// and B's team two false "back to normal" when `job_notices` was keyed by the name alone
// (issue #41). Existing state is kept: it becomes the conference of the job's newest run
// that names one, else conference 0 ("not known"), which the job's next run adopts
// (`Ledger.adoptUnscopedState`). Deliveries name their run's conference, else the job's.
export const migration0013: Migration = {
  version: 13,
  name: 'notices per conference',
  sql: /* sql */ `
ALTER TABLE job_notices ADD COLUMN IF NOT EXISTS conference_id integer NOT NULL DEFAULT 0;
UPDATE job_notices n SET conference_id = coalesce((
  SELECT r.conference_id FROM runs r
  WHERE r.job_name = n.job_name AND r.conference_id IS NOT NULL ORDER BY r.seq DESC LIMIT 1), 0);
ALTER TABLE job_notices DROP CONSTRAINT IF EXISTS job_notices_pkey;
ALTER TABLE job_notices ADD PRIMARY KEY (conference_id, job_name);
ALTER TABLE job_notices ALTER COLUMN conference_id DROP DEFAULT;

ALTER TABLE notice_deliveries ADD COLUMN IF NOT EXISTS conference_id integer NOT NULL DEFAULT 0;
UPDATE notice_deliveries d SET conference_id = r.conference_id
FROM runs r WHERE r.id = d.run_id AND r.conference_id IS NOT NULL;
UPDATE notice_deliveries d SET conference_id = n.conference_id
FROM job_notices n WHERE d.run_id IS NULL AND n.job_name = d.job_name;
ALTER TABLE notice_deliveries ALTER COLUMN conference_id DROP DEFAULT;
DROP INDEX IF EXISTS notice_deliveries_job;
CREATE INDEX IF NOT EXISTS notice_deliveries_job ON notice_deliveries (conference_id, job_name, id DESC);
`,
};
