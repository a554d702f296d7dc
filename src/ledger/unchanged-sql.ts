import type { ResultFilter } from '../model/result-records.js';
import type { BuiltQuery } from './result-query.js';

/**
 * A run's unchanged rows, kept as keys per planned chunk (migration 11, docs/ledger.md
 * "What a run stores") and read back as results: `unchanged`, no call, the platform id from
 * the id map and the params of the result the key's synced hash points at (redacted, as
 * stored), so a report still names the person.
 *
 * Their `seq` is made up: {@link UNCHANGED_SEQ_BASE} + the chunk's seq × 1,024 + the key's
 * place in it. It sorts after every recorded result of the run and pages like one, and stays
 * below 2^53 for 7 × 10^12 chunks.
 */
export const UNCHANGED_SEQ_BASE = 2 ** 50;
/** Places a row of `run_unchanged` leaves for its keys in the made-up `seq`. */
const SEQ_PER_ROW = 1024;

/** The made-up `seq` of the key at (1-based) place `place` of row `u`, in SQL. */
const unchangedSeq = (place: string): string =>
  `(${UNCHANGED_SEQ_BASE}::bigint + u.seq * ${SEQ_PER_ROW} + ${place})`;
/** Keys per row of `run_unchanged` at most: the made-up `seq` leaves room for 1,024. */
export const UNCHANGED_PER_ROW = 1000;

/** $1 run id, $2 JSON array of {kind, n, keys}. */
export const INSERT_UNCHANGED = `INSERT INTO run_unchanged (run_id, kind, n, keys)
SELECT $1, u.kind, u.n, ARRAY(SELECT jsonb_array_elements_text(u.keys))
FROM jsonb_to_recordset($2::text::jsonb) AS u(kind text, n integer, keys jsonb)`;

/** $1 run id: the unchanged rows per kind, from the counts alone (the arrays are not read). */
export const COUNT_UNCHANGED = `SELECT kind, 'unchanged' AS action, sum(n) AS n FROM run_unchanged
WHERE run_id = $1 GROUP BY kind`;

/** Whether a results filter can match a row kept as an unchanged key. */
export function admitsUnchanged(filter: Omit<ResultFilter, 'afterSeq' | 'limit'>): boolean {
  if (filter.actions && !filter.actions.includes('unchanged')) return false;
  // Unchanged rows carry no error.
  return filter.errorCodes === undefined || filter.errorCodes.length === 0;
}

/**
 * The unchanged keys of a run that match a filter, as result rows (see the columns of
 * `RESULT_COLUMNS`). A key's platform id and params are subqueries, one primary-key probe
 * each: as a LEFT JOIN of `id_map`, a server without statistics for it probed the id map by
 * conference and kind only and compared every id of the kind with each key (21 million rows
 * and 9 s for a page of 2, at 20,000 ids).
 */
export function selectUnchanged(runId: string, filter: ResultFilter): BuiltQuery {
  const params: unknown[] = [runId];
  const add = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = ['u.run_id = $1'];
  if (filter.kinds) where.push(`u.kind = ANY(${add(filter.kinds)}::text[])`);
  if (filter.since) where.push(`u.recorded_at >= ${add(filter.since.toISOString())}::timestamptz`);
  const after = filter.afterSeq ?? 0;
  if (after >= UNCHANGED_SEQ_BASE) {
    // Chunks before the one the last page ended in are not read.
    where.push(`u.seq >= ${add(Math.floor((after - UNCHANGED_SEQ_BASE) / SEQ_PER_ROW))}`);
  }
  const keyWhere: string[] = [];
  if (filter.keys) keyWhere.push(`k.key = ANY(${add(filter.keys)}::text[])`);
  const seq = unchangedSeq('k.ord');
  if (after >= UNCHANGED_SEQ_BASE) keyWhere.push(`${seq} > ${add(after)}`);
  const limit = filter.limit === undefined ? '' : ` LIMIT ${add(Math.max(0, Math.floor(filter.limit)))}`;
  return {
    sql: `SELECT ${seq} AS seq, u.run_id, u.kind, k.key, 'unchanged' AS action,
  NULL::text AS origin_source, NULL::integer AS origin_row, NULL::integer AS origin_line,
  (SELECT m.platform_id FROM id_map m
   WHERE m.conference_id = ru.conference AND m.kind = u.kind AND m.client_id = k.key) AS platform_id,
  NULL::integer AS http_status, NULL::text AS error_code, NULL::text AS error_message,
  0 AS attempts, 0 AS duration_ms,
  (SELECT r.params FROM synced_hashes s JOIN intent_results r ON r.run_id = s.run_id AND r.kind = s.kind AND r.key = s.key
   WHERE s.conference_id = ru.conference AND s.kind = u.kind AND s.key = k.key) AS params,
  u.recorded_at, NULL::text AS worker
FROM run_unchanged u
JOIN (SELECT id, coalesce(conference_id, 0) AS conference FROM runs) ru ON ru.id = u.run_id
CROSS JOIN LATERAL unnest(u.keys) WITH ORDINALITY AS k(key, ord)
WHERE ${where.join(' AND ')}${keyWhere.length > 0 ? ` AND ${keyWhere.join(' AND ')}` : ''}
ORDER BY u.seq, k.ord${limit}`,
    params,
  };
}

/**
 * Key $2 of kind $1 as the unchanged result of run `runs.id` (a lateral subquery of the
 * runs a key's history reads, newest first): the run's chunks of the kind, read through
 * `run_unchanged_run`.
 */
export const UNCHANGED_KEY_RESULT = `SELECT ${unchangedSeq('array_position(u.keys, $2::text)')} AS seq,
  u.run_id, u.kind, $2::text AS key, 'unchanged' AS action,
  NULL::text AS origin_source, NULL::integer AS origin_row, NULL::integer AS origin_line,
  (SELECT m.platform_id FROM id_map m JOIN runs ru ON ru.id = u.run_id
   WHERE m.conference_id = coalesce(ru.conference_id, 0) AND m.kind = u.kind AND m.client_id = $2) AS platform_id,
  NULL::integer AS http_status, NULL::text AS error_code, NULL::text AS error_message, 0 AS attempts, 0 AS duration_ms,
  (SELECT r.params FROM runs ru JOIN synced_hashes s ON s.conference_id = coalesce(ru.conference_id, 0)
   JOIN intent_results r ON r.run_id = s.run_id AND r.kind = s.kind AND r.key = s.key
   WHERE ru.id = u.run_id AND s.kind = u.kind AND s.key = $2) AS params,
  u.recorded_at, NULL::text AS worker
FROM run_unchanged u WHERE u.run_id = runs.id AND u.kind = $1 AND $2::text = ANY(u.keys)`;

/**
 * $1 run id, $2 and $3 a span of `seq` (after, through), read by the primary key: a
 * statement per span costs what the span holds, where a `LIMIT` of the run's intents read
 * the rows deleted before again each time. A completed run's
 * planned intents whose result is a plain success. Only a resume read them (params, origin,
 * dependencies); a retry reads those of failed and skipped rows, and of successes with a
 * code (a schedule sent without a session that failed, which a retry sends whole again),
 * which stay. Each intent's result is one index probe, kept apart by `OFFSET 0`, for the
 * reason `NO_RESULT_YET` gives (ledger-sql.ts): 14 s a span with statistics from before the run.
 */
export const DELETE_SETTLED_PLANNED = `WITH deleted AS (DELETE FROM run_intents ri
  WHERE ri.seq > $2 AND ri.seq <= $3 AND ri.run_id = $1 AND EXISTS (SELECT 1 FROM (SELECT 1 FROM intent_results r
    WHERE r.run_id = ri.run_id AND r.kind = ri.kind AND r.key = ri.key AND r.error_code IS NULL
      AND r.action IN ('created', 'attached', 'updated', 'unchanged', 'deleted', 'retired') OFFSET 0) settled)
  RETURNING 1)
SELECT count(*) AS n FROM deleted`;
