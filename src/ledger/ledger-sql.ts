/**
 * The ledger's statements, one dialect for PGlite and PostgreSQL. Bulk writes take ONE
 * param, JSON (`$n::text::jsonb`: the text cast keeps PGlite from re-encoding a string as
 * a JSON scalar), expanded by `jsonb_to_recordset` or `jsonb_array_elements`. That is a
 * multi-row INSERT of any size without the 65,535-param limit, and it measured faster
 * than 1,000 `($1, $2, …)` tuples on PGlite.
 */

const RUN_COLUMNS = `id, seq, job_name, mode, status, started_at, finished_at, counts, lost, options, conference_id,
  (SELECT c.base_url FROM conferences c WHERE c.id = runs.conference_id) AS conference_url, pruned_at, prune`;

/** $1 id, $2 job name, $3 mode, $4 options JSON, $5 conference id. */
export const INSERT_RUN = `INSERT INTO runs (id, job_name, mode, status, options, conference_id)
VALUES ($1, $2, $3, 'running', $4::text::jsonb, $5) RETURNING ${RUN_COLUMNS}`;

/** $1 id, $2 status, $3 counts JSON, $4 lost rows (null when not counted). */
export const FINISH_RUN = `UPDATE runs SET status = $2, finished_at = now(), counts = $3::text::jsonb, lost = $4
WHERE id = $1 RETURNING ${RUN_COLUMNS}`;

/** $1 id, $2 status. A non-terminal status clears `finished_at`. */
export const SET_RUN_STATUS = `UPDATE runs SET status = $2,
  finished_at = CASE WHEN $2 IN ('running', 'interrupted') THEN NULL ELSE coalesce(finished_at, now()) END
WHERE id = $1 RETURNING id`;

/** $1 id, $2 JSON object: merged into the run's options. */
export const MERGE_RUN_OPTIONS = `UPDATE runs SET options = options || $2::text::jsonb WHERE id = $1 RETURNING id`;

/** $1 id. */
export const SELECT_RUN = `SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`;

/** $1 JSON array of run ids: those that exist, with their conference (0 for a run that names none). */
export const SELECT_RUN_CONFERENCES = `SELECT id, coalesce(conference_id, 0) AS conference_id FROM runs
WHERE id IN (SELECT jsonb_array_elements_text($1::text::jsonb))`;

/**
 * $1 limit, $2 conference id, $3 job name, $4 statuses (comma-separated), $5 trigger, $6 started
 * at or after; each NULL for any. Newest first by `seq` (migration 4): runs created in one
 * instant still have an order. A run recorded before runs kept their trigger was `manual`.
 */
export const SELECT_RUNS = `SELECT ${RUN_COLUMNS} FROM runs
WHERE ($2::integer IS NULL OR conference_id = $2::integer) AND ($3::text IS NULL OR job_name = $3)
  AND ($4::text IS NULL OR status = ANY (string_to_array($4::text, ',')))
  AND ($5::text IS NULL OR coalesce(options->>'trigger', 'manual') = $5)
  AND ($6::timestamptz IS NULL OR started_at >= $6::timestamptz)
ORDER BY seq DESC LIMIT $1`;

/**
 * Each job's newest run that started (a scheduled run `skipped` for a busy job did not), and
 * its newest success: completed with no row failed or lost, nor, for a retry with a filter,
 * any left failing outside it (`RunRecord.failedOutside`) (`Ledger.jobRuns`); per conference, as a
 * job name may run against several.
 */
export const SELECT_LAST_RUNS = `SELECT DISTINCT ON (job_name, conference_id) ${RUN_COLUMNS} FROM runs
WHERE status <> 'skipped' ORDER BY job_name, conference_id, seq DESC`;
/** How many runs each job has per status (`Ledger.runCounts`). */
export const COUNT_RUNS_BY_JOB = `SELECT job_name, status, count(*) AS n FROM runs GROUP BY job_name, status
ORDER BY job_name, status`;
export const SELECT_LAST_COMPLETED = `SELECT DISTINCT ON (job_name, conference_id) ${RUN_COLUMNS} FROM runs
WHERE status = 'completed' ORDER BY job_name, conference_id, seq DESC`;
export const SELECT_LAST_SUCCESSES = `SELECT DISTINCT ON (job_name, conference_id) ${RUN_COLUMNS} FROM runs
WHERE status = 'completed' AND coalesce((counts->>'failed')::integer, 0) = 0 AND coalesce(lost, 0) = 0
  AND coalesce((options->>'failedOutsideFilter')::integer, 0) = 0
ORDER BY job_name, conference_id, seq DESC`;

/** $1 job name, $2 pid, $3 host, $4 conference id: who holds the job's lock now (read to name it to others). */
export const NOTE_JOB_LOCK = `INSERT INTO job_locks (job_name, run_id, pid, host, locked_at, conference_id)
VALUES ($1, NULL, $2, $3, now(), $4)
ON CONFLICT (conference_id, job_name) DO UPDATE SET run_id = NULL, pid = excluded.pid, host = excluded.host,
  locked_at = excluded.locked_at`;

/** $1 job name, $2 run id, $3 conference id. */
export const NOTE_JOB_LOCK_RUN =
  'UPDATE job_locks SET run_id = $2 WHERE job_name = $1 AND conference_id = $3';

/** $1 job name, $2 conference id. */
export const SELECT_JOB_LOCK = `SELECT l.run_id, l.pid, l.host, l.locked_at, r.status AS run_status
FROM job_locks l LEFT JOIN runs r ON r.id = l.run_id WHERE l.job_name = $1 AND l.conference_id = $2`;

/**
 * $1 job name, $2 conference id, $3 run id: whether the job's lock is this run's, noted
 * (`NOTE_JOB_LOCK_RUN`) or not yet: a holder still planning took the lock before the run
 * was created. Compared here, in the server's clock and to the microsecond.
 */
export const JOB_LOCK_IS_RUNS = `SELECT (l.run_id = r.id OR (l.run_id IS NULL AND r.started_at >= l.locked_at)) AS its
FROM job_locks l JOIN runs r ON r.id = $3 WHERE l.job_name = $1 AND l.conference_id = $2`;

/** $1 run id, $2 JSON array of planned intents (a function scan keeps their order for `seq`). */
export const INSERT_PLANNED = `INSERT INTO run_intents
  (run_id, kind, key, op, planned_action, params, redacted_params, origin, depends_on, hash, aliases)
SELECT $1, p.* FROM jsonb_to_recordset($2::text::jsonb) AS p(kind text, key text, op text, planned_action text,
  params jsonb, redacted_params jsonb, origin jsonb, depends_on jsonb, hash text, aliases jsonb)
ON CONFLICT (run_id, kind, key) DO UPDATE SET op = excluded.op, planned_action = excluded.planned_action,
  params = excluded.params, redacted_params = excluded.redacted_params, origin = excluded.origin,
  depends_on = excluded.depends_on, hash = excluded.hash, aliases = excluded.aliases`;

/** $1 run id. */
export const COUNT_PLANNED = 'SELECT count(*) AS n FROM run_intents WHERE run_id = $1';

export const PLANNED_COLUMNS =
  'ri.seq, ri.run_id, ri.kind, ri.key, ri.op, ri.planned_action, ri.params, ri.redacted_params, ri.origin, ri.depends_on, ri.hash, ri.send_started_at, ri.aliases';

/** $1 run id, $2 JSON array of {kind, key}. A mark already set keeps its first time. */
export const MARK_SEND_STARTED = `UPDATE run_intents ri SET send_started_at = clock_timestamp()
FROM jsonb_to_recordset($2::text::jsonb) AS m(kind text, key text)
WHERE ri.run_id = $1 AND ri.kind = m.kind AND ri.key = m.key AND ri.send_started_at IS NULL`;

/** $1 run, $2 kind, $3 key. */
export const UNMARK_SEND_STARTED =
  'UPDATE run_intents SET send_started_at = NULL WHERE run_id = $1 AND kind = $2 AND key = $3';

const RESULT_FIELDS = `run_id text, kind text, key text, action text, origin_source text, origin_row integer,
  origin_line integer, platform_id bigint, http_status integer, error_code text, error_message text,
  attempts integer, duration_ms integer, params jsonb, worker text`;

/**
 * $1 a `ResultBatch` as JSON. One statement writes the results and their side effects
 * (data-modifying CTEs all run, atomically): one round trip per batch instead of five.
 * The batch's hash and id sets and removals never share a key (see prepareResultBatch).
 * An unchanged hash or id is not rewritten (a nightly rerun is mostly `unchanged`), so
 * `synced_at` stays the time the platform last received that content.
 */
export const RECORD_RESULTS = `WITH batch AS MATERIALIZED (SELECT $1::text::jsonb AS b),
results AS (
  INSERT INTO intent_results (run_id, kind, key, action, origin_source, origin_row, origin_line, platform_id,
    http_status, error_code, error_message, attempts, duration_ms, params, worker, recorded_at)
  SELECT r.*, clock_timestamp() FROM batch, jsonb_to_recordset(batch.b->'results') AS r(${RESULT_FIELDS})
  ON CONFLICT (run_id, kind, key) DO UPDATE SET action = excluded.action, origin_source = excluded.origin_source,
    origin_row = excluded.origin_row, origin_line = excluded.origin_line, platform_id = excluded.platform_id,
    http_status = excluded.http_status, error_code = excluded.error_code, error_message = excluded.error_message,
    attempts = excluded.attempts, duration_ms = excluded.duration_ms, params = excluded.params,
    worker = excluded.worker, recorded_at = excluded.recorded_at),
hash_set AS (
  INSERT INTO synced_hashes (conference_id, kind, key, hash, run_id, synced_at)
  SELECT h.*, now() FROM batch,
    jsonb_to_recordset(batch.b->'hashUpserts') AS h(conference_id integer, kind text, key text, hash text, run_id text)
  ON CONFLICT (conference_id, kind, key) DO UPDATE SET hash = excluded.hash, run_id = excluded.run_id,
    synced_at = excluded.synced_at
  WHERE synced_hashes.hash <> excluded.hash),
hash_removed AS (
  DELETE FROM synced_hashes s USING batch,
    jsonb_to_recordset(batch.b->'hashRemovals') AS d(conference_id integer, kind text, key text)
  WHERE s.conference_id = d.conference_id AND s.kind = d.kind AND s.key = d.key),
id_set AS (
  INSERT INTO id_map (conference_id, kind, client_id, platform_id, updated_at)
  SELECT i.*, now() FROM batch,
    jsonb_to_recordset(batch.b->'idUpserts') AS i(conference_id integer, kind text, key text, platform_id bigint)
  ON CONFLICT (conference_id, kind, client_id) DO UPDATE SET platform_id = excluded.platform_id,
    updated_at = excluded.updated_at
  WHERE id_map.platform_id <> excluded.platform_id),
id_removed AS (
  DELETE FROM id_map m USING batch,
    jsonb_to_recordset(batch.b->'idRemovals') AS d(conference_id integer, kind text, key text)
  WHERE m.conference_id = d.conference_id AND m.kind = d.kind AND m.client_id = d.key)
SELECT 1 AS done`;

export const RESULT_COLUMNS = `r.seq, r.run_id, r.kind, r.key, r.action, r.origin_source, r.origin_row, r.origin_line,
  r.platform_id, r.http_status, r.error_code, r.error_message, r.attempts, r.duration_ms, r.params, r.recorded_at,
  r.worker`;

/**
 * $1 run id: when it last recorded a result. Its newest result by `seq` (the `(run_id, seq)`
 * index, one row read) and its newest chunk of unchanged keys.
 */
export const LAST_RESULT_AT = `SELECT greatest(
  (SELECT recorded_at FROM intent_results WHERE run_id = $1 ORDER BY seq DESC LIMIT 1),
  (SELECT max(recorded_at) FROM run_unchanged WHERE run_id = $1)) AS at`;

/** $1 run id. */
export const COUNT_RESULTS = `SELECT kind, action, count(*) AS n FROM intent_results WHERE run_id = $1
GROUP BY kind, action`;

/**
 * $1 run id: keys that later runs of its job ended with a success or a delete. A retry
 * carries the content of the run it retries, so it counts as later only when that run
 * was created after this one. "Later" is by `seq` (migration 4), never by time. Results
 * and the keys kept unchanged (migration 11), not synced hashes: an unchanged key keeps the
 * hash row of the run that last changed it.
 */
export const SELECT_HANDLED_LATER = `SELECT DISTINCT r.kind, r.key FROM runs this
JOIN runs later ON later.job_name = this.job_name AND later.seq > this.seq
  AND later.conference_id IS NOT DISTINCT FROM this.conference_id
  AND coalesce((SELECT base.seq > this.seq FROM runs base
    WHERE base.id = later.options->>'retryOf'), true)
JOIN LATERAL (
  SELECT r.kind, r.key FROM intent_results r
  WHERE r.run_id = later.id AND r.action IN ('created', 'attached', 'updated', 'unchanged', 'deleted', 'retired')
  UNION ALL
  SELECT u.kind, k.key FROM run_unchanged u CROSS JOIN LATERAL unnest(u.keys) AS k(key) WHERE u.run_id = later.id
) r ON true
WHERE this.id = $1`;

/**
 * The keys among $3 (text[]) of kind $2 that run `run` kept unchanged (migration 11): its
 * rows of keys that share one with the page (`&&`), unnested and filtered.
 */
const UNCHANGED_OF_KEYS = (run: string): string => `SELECT k.key FROM run_unchanged u
    CROSS JOIN LATERAL unnest(u.keys) AS k (key)
    WHERE u.run_id = ${run} AND u.kind = $2 AND u.keys && $3::text[] AND k.key = ANY($3::text[])`;

/**
 * $1 run id, $2 kind, $3 keys (text[]): those of the keys that later runs of its job ended
 * with a success or a delete, as `SELECT_HANDLED_LATER` says "later". One probe of the
 * results' `(run_id, kind, key)` index per key and later run: a resume or a retry asks
 * page by page, never for every key of the later runs.
 */
export const SELECT_HANDLED_LATER_OF = `SELECT DISTINCT r.key FROM runs this
JOIN runs later ON later.job_name = this.job_name AND later.seq > this.seq
  AND later.conference_id IS NOT DISTINCT FROM this.conference_id
  AND coalesce((SELECT base.seq > this.seq FROM runs base
    WHERE base.id = later.options->>'retryOf'), true)
CROSS JOIN LATERAL (
  SELECT ri.key FROM unnest($3::text[]) AS wanted (key) CROSS JOIN LATERAL (SELECT ri.key, ri.action
    FROM intent_results ri WHERE ri.run_id = later.id AND ri.kind = $2 AND ri.key = wanted.key OFFSET 0) ri
  WHERE ri.action IN ('created', 'attached', 'updated', 'unchanged', 'deleted', 'retired')
  UNION ALL
  ${UNCHANGED_OF_KEYS('later.id')}
) r
WHERE this.id = $1`;

/**
 * $1 run id, $2 kind, $3 keys (text[]): the run's result of each key that has one, one
 * probe of the `(run_id, kind, key)` index per key (the lateral subquery, kept apart by
 * `OFFSET 0`, pins that plan: left to itself, the planner joins the keys to every result of
 * the run's kind whenever its statistics predate the run).
 */
export const SELECT_OUTCOMES_OF = `SELECT r.key, r.action, r.error_message FROM unnest($3::text[]) AS wanted(key)
CROSS JOIN LATERAL (SELECT r.key, r.action, r.error_message FROM intent_results r
  WHERE r.run_id = $1 AND r.kind = $2 AND r.key = wanted.key OFFSET 0) r
UNION ALL
SELECT u.key, 'unchanged', NULL FROM (${UNCHANGED_OF_KEYS('$1')}) u`;

/**
 * The condition "the planned intent `ri` has no final result yet", for the pending-intent
 * queries (`resume`). Its results are probed by `(run_id, kind, key)`, one index probe per
 * intent, in a subquery kept apart by `OFFSET 0`: written as a plain `NOT EXISTS`, the
 * planner carried the run's id into it as a constant and, whenever its statistics predated
 * the run (what autovacuum leaves on a ledger with history), scanned every result of the run
 * for each intent, filtering on kind and key: 365 M rows and 7 minutes before a 40,000-user
 * resume's first call.
 */
export const NO_RESULT_YET =
  'NOT EXISTS (SELECT 1 FROM (SELECT 1 FROM intent_results r WHERE r.run_id = ri.run_id AND r.kind = ri.kind AND r.key = ri.key OFFSET 0) result)';

/** $1 run id: the run's planned intents without a final result, counted per kind and planned action. */
export const COUNT_PENDING = `SELECT ri.kind, ri.planned_action, count(*) AS n FROM run_intents ri
WHERE ri.run_id = $1 AND ${NO_RESULT_YET}
GROUP BY ri.kind, ri.planned_action`;

/** The tables a resume reads a run's plan and results from (`Ledger.refreshPlanStatistics`). */
export const ANALYZE_PLAN_TABLES = 'ANALYZE run_intents, intent_results, run_unchanged';

/** $1 run id: the first and last `seq` of the run's plan. */
export const SELECT_PLAN_SPAN =
  'SELECT min(seq) AS first, max(seq) AS last FROM run_intents WHERE run_id = $1';
