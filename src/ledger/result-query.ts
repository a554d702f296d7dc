import type { PendingFilter } from '../model/planned-intent.js';
import type { ResultCountFilter, ResultFilter } from '../model/result-records.js';
import { NO_RESULT_YET, PLANNED_COLUMNS, RESULT_COLUMNS } from './ledger-sql.js';

export interface BuiltQuery {
  sql: string;
  params: unknown[];
}

/** Final results of a run matching a filter, in `seq` order (keyset paging on `seq`). */
export function selectResults(runId: string, filter: ResultFilter = {}): BuiltQuery {
  const params: unknown[] = [runId];
  const where = ['r.run_id = $1', ...resultConditions(filter, params)];
  if (filter.afterSeq !== undefined) where.push(`r.seq > ${param(params, filter.afterSeq)}`);
  return {
    sql: `SELECT ${RESULT_COLUMNS} FROM intent_results r WHERE ${where.join(' AND ')} ORDER BY r.seq${limit(filter.limit, params)}`,
    params,
  };
}

/**
 * A run's results counted per kind and action: only those distributed workers wrote (they
 * name themselves in `worker`), or only those with these error codes, when asked.
 */
export function countResults(runId: string, filter: ResultCountFilter = {}): BuiltQuery {
  const params: unknown[] = [runId];
  const where = ['run_id = $1'];
  if (filter.byWorkers === true) where.push('worker IS NOT NULL');
  if (filter.errorCodes) where.push(oneOf('error_code', filter.errorCodes, params));
  return {
    sql: `SELECT kind, action, count(*) AS n FROM intent_results WHERE ${where.join(' AND ')} GROUP BY kind, action`,
    params,
  };
}

/** Planned intents of a run with no final result: what `resume` must still do. */
export function selectPending(runId: string, filter: PendingFilter = {}): BuiltQuery {
  if (filter.keys && filter.kinds)
    return selectPendingByKey(runId, { ...filter, keys: filter.keys, kinds: filter.kinds });
  if (filter.throughSeq !== undefined) return selectPendingInSpan(runId, filter, filter.throughSeq);
  const params: unknown[] = [runId];
  const where = ['ri.run_id = $1'];
  if (filter.kinds) where.push(oneOf('ri.kind', filter.kinds, params));
  if (filter.keys) where.push(oneOf('ri.key', filter.keys, params));
  where.push(...pendingConditions(filter, params));
  return {
    sql: `SELECT ${PLANNED_COLUMNS} FROM run_intents ri WHERE ${where.join(' AND ')} ORDER BY ri.seq${limit(filter.limit, params)}`,
    params,
  };
}

/**
 * The pending intents of a span of `seq` (`afterSeq` exclusive, `throughSeq` inclusive):
 * the span is read by the primary key first (a materialised CTE), then the run, kinds and
 * results are checked for its rows only. Left to itself the planner, whose statistics
 * predate the run, reads every index entry of the run for each span (or every intent after
 * `afterSeq`), which makes paging through a big run's plan quadratic.
 */
function selectPendingInSpan(runId: string, filter: PendingFilter, throughSeq: number): BuiltQuery {
  const params: unknown[] = [runId];
  const from = param(params, filter.afterSeq ?? 0);
  const through = param(params, throughSeq);
  const where = ['ri.run_id = $1'];
  if (filter.kinds) where.push(oneOf('ri.kind', filter.kinds, params));
  if (filter.sendStarted) where.push('ri.send_started_at IS NOT NULL');
  where.push(NO_RESULT_YET);
  return {
    sql:
      `WITH span AS MATERIALIZED (SELECT * FROM run_intents WHERE seq > ${from} AND seq <= ${through}) ` +
      `SELECT ${PLANNED_COLUMNS} FROM span ri WHERE ${where.join(' AND ')} ORDER BY ri.seq${limit(filter.limit, params)}`,
    params,
  };
}

/**
 * The pending intents of some kinds and keys (those a distributed worker is handed), one
 * `(run_id, kind, key)` index probe each: the lateral subquery, kept apart by `OFFSET 0`,
 * pins that plan. Left to itself the planner joins the keys to the whole run whenever its
 * statistics predate the run, which they do while a new run is being sent. One set-returning
 * function, not one per list: two would multiply their row estimates past `jit_above_cost`,
 * and compiling the query would cost 20 ms a read.
 *
 * With `ahead`, the intents of the same kinds planned next are read too, by probing the
 * primary key of each `seq` of a short span after the last asked one: a plan is recorded in
 * chunks, so the span holds the run's next intents, and the probes keep the cost to the span
 * whatever the size of the run or the planner's statistics. Their results are not looked
 * up: with statistics older than the run, the planner probed the results by run alone, and
 * read every result of the run for each intent (30 ms a read at 3,000 results).
 */
function selectPendingByKey(
  runId: string,
  filter: PendingFilter & Required<Pick<PendingFilter, 'kinds' | 'keys'>>,
): BuiltQuery {
  const params: unknown[] = [runId];
  const pairs = filter.kinds.flatMap((kind) => [...new Set(filter.keys)].map((key) => ({ kind, key })));
  const where = ['ri.run_id = $1', 'ri.kind = wanted.kind', 'ri.key = wanted.key'];
  where.push(...pendingConditions(filter, params));
  const asked =
    `SELECT ri.* FROM jsonb_to_recordset(${json(params, pairs)}) AS wanted (kind text, key text) ` +
    `CROSS JOIN LATERAL ` +
    `(SELECT ${PLANNED_COLUMNS} FROM run_intents ri WHERE ${where.join(' AND ')} OFFSET 0) ri`;
  const ahead = Math.max(0, Math.floor(filter.ahead ?? 0));
  if (ahead === 0) return { sql: `${asked} ORDER BY ri.seq${limit(filter.limit, params)}`, params };
  // A constant span: the planner then knows how many probes there are. From a subquery it
  // assumes a thousand, and the estimate crosses `jit_above_cost` (25 ms of compiling a read).
  const span = Math.min(ahead, MAX_AHEAD) * AHEAD_SPAN;
  const next = ['ri.run_id = $1', oneOf('ri.kind', filter.kinds, params)];
  if (filter.sendStarted) next.push('ri.send_started_at IS NOT NULL');
  return {
    sql:
      `WITH asked AS (${asked}) SELECT * FROM asked UNION ALL (SELECT ri.* FROM ` +
      `generate_series(1, ${span}) AS probe (n) CROSS JOIN LATERAL ` +
      `(SELECT ${PLANNED_COLUMNS} FROM run_intents ri WHERE ri.seq = (SELECT max(seq) FROM asked) + probe.n OFFSET 0) ri ` +
      `WHERE ${next.join(' AND ')} ORDER BY ri.seq LIMIT ${param(params, ahead)}) ORDER BY seq${limit(filter.limit, params)}`,
    params,
  };
}

/** Sequence numbers probed per intent read ahead: other runs' and kinds' intents share the sequence. */
const AHEAD_SPAN = 2;
/** Intents read ahead at most per read. */
const MAX_AHEAD = 256;

function pendingConditions(filter: PendingFilter, params: unknown[]): string[] {
  const where: string[] = [];
  if (filter.afterSeq !== undefined) where.push(`ri.seq > ${param(params, filter.afterSeq)}`);
  if (filter.sendStarted) where.push('ri.send_started_at IS NOT NULL');
  where.push(NO_RESULT_YET);
  return where;
}

/** Planned intents whose final result matches the filter (`failed` ones for `evsync retry`). */
export function selectPlannedByResult(runId: string, filter: ResultFilter): BuiltQuery {
  const params: unknown[] = [runId];
  const where = ['ri.run_id = $1', ...resultConditions(filter, params)];
  if (filter.afterSeq !== undefined) where.push(`ri.seq > ${param(params, filter.afterSeq)}`);
  return {
    sql:
      `SELECT ${PLANNED_COLUMNS} FROM run_intents ri JOIN intent_results r ` +
      `ON r.run_id = ri.run_id AND r.kind = ri.kind AND r.key = ri.key ` +
      `WHERE ${where.join(' AND ')} ORDER BY ri.seq${limit(filter.limit, params)}`,
    params,
  };
}

/**
 * Deletes the matching results of planned intents and clears those intents' send marks:
 * they are pending again. Results of rows that were never planned (invalid rows) stay.
 */
export function reopenResults(runId: string, filter: Omit<ResultFilter, 'afterSeq' | 'limit'>): BuiltQuery {
  const params: unknown[] = [runId];
  const where = [
    'r.run_id = $1',
    ...resultConditions(filter, params),
    'EXISTS (SELECT 1 FROM run_intents ri WHERE ri.run_id = r.run_id AND ri.kind = r.kind AND ri.key = r.key)',
  ];
  return {
    sql:
      `WITH reopened AS (DELETE FROM intent_results r WHERE ${where.join(' AND ')} RETURNING r.kind, r.key),\n` +
      'unmarked AS (UPDATE run_intents ri SET send_started_at = NULL FROM reopened ' +
      'WHERE ri.run_id = $1 AND ri.kind = reopened.kind AND ri.key = reopened.key RETURNING 1)\n' +
      'SELECT count(*) AS n FROM reopened',
    params,
  };
}

/** The `WHERE` conditions of a filter on results `r`, its params appended to `params`. */
export function resultConditions(
  filter: Omit<ResultFilter, 'afterSeq' | 'limit'>,
  params: unknown[],
): string[] {
  const where: string[] = [];
  if (filter.actions)
    where.push(`r.action IN (SELECT jsonb_array_elements_text(${json(params, filter.actions)}))`);
  if (filter.errorCodes)
    where.push(`r.error_code IN (SELECT jsonb_array_elements_text(${json(params, filter.errorCodes)}))`);
  if (filter.kinds) where.push(oneOf('r.kind', filter.kinds, params));
  if (filter.keys) where.push(oneOf('r.key', filter.keys, params));
  if (filter.since) where.push(`r.recorded_at >= ${param(params, filter.since.toISOString())}::timestamptz`);
  return where;
}

function param(params: unknown[], value: unknown): string {
  params.push(value);
  return `$${params.length}`;
}

function json(params: unknown[], value: unknown): string {
  return `${param(params, JSON.stringify(value))}::text::jsonb`;
}

function limit(value: number | undefined, params: unknown[]): string {
  return value === undefined ? '' : ` LIMIT ${param(params, Math.max(0, Math.floor(value)))}`;
}

/**
 * `column` is one of `values`. One value is an equality, which the planner can answer from
 * an index.
 */
function oneOf(column: string, values: readonly string[], params: unknown[]): string {
  if (values.length === 1) return `${column} = ${param(params, values[0])}`;
  return `${column} IN (SELECT jsonb_array_elements_text(${json(params, values)}))`;
}
