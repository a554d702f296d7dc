import type { IntentKind } from '../model/intent.js';
import type { IntentResultRecord, ResultAction, ResultFilter } from '../model/result-records.js';
import { toNumber, toResultRecord, type Int8, type ResultRow } from './ledger-rows.js';
import { RESULT_COLUMNS } from './ledger-sql.js';
import { resultConditions } from './result-query.js';
import {
  admitsUnchanged,
  selectUnchanged,
  UNCHANGED_KEY_RESULT,
  UNCHANGED_SEQ_BASE,
} from './unchanged-sql.js';
import type { SqlExecutor } from './sql-client.js';
import { callBuckets } from './sql-call-seconds.js';

/**
 * What a person browsing the ledger asks that a run never does (docs/dashboard.md): a
 * search, errors grouped, results over time, one key's history. Read-only, one SQL
 * dialect for PGlite and PostgreSQL, and keyset-paged like `Ledger.results`.
 */
export interface LedgerInsights {
  /**
   * `Ledger.results` with a text search, one keyset page: at most `limit` results after
   * `afterSeq`, in `seq` order, and where to go on from. A text search reads at most
   * `window` results of the run per call (matching a text needs every row's params, and no
   * index holds them), so its page may hold fewer matches, or none, with a `next`.
   */
  searchResults(runId: string, filter: SearchFilter): Promise<SearchPage>;
  /**
   * Failed and skipped results of a run, grouped by code and message, most first. The message
   * is grouped as a pattern (row prefix out, quoted values `"…"`, every run of digits `N`), so
   * that one problem naming a different platform id or number in each row is one group.
   */
  errorGroups(runId: string, limit?: number): Promise<ErrorGroup[]>;
  /** Results per time bucket over the run, for a chart; at most about `buckets` of them. */
  timeline(runId: string, buckets?: number): Promise<Timeline>;
  /** This key's results in the newest `runs` runs of the ledger, newest first. */
  keyHistory(kind: IntentKind, key: string, runs?: number): Promise<KeyHistoryEntry[]>;
}

export interface SearchFilter extends Omit<ResultFilter, 'since'> {
  /**
   * Matched, case-insensitively, anywhere in the key (client_id), the error message, or the
   * values of `textParams`, as text: `%` and `_` are themselves. Params are stored
   * redacted, so a secret never matches.
   */
  text?: string;
  /**
   * The params a text search reads, by name (`user[email]`): those a person means when
   * searching for someone or something. A list of names is one value, its parts joined by a
   * space (a whole name). Never the stored JSON text, whose quotes, brackets and param names
   * would match every row. @defaultValue none: the key and the message only
   */
  textParams?: ReadonlyArray<string | readonly string[]>;
  /** Results read per call by a text search. @defaultValue 5,000 */
  window?: number;
}

export interface SearchPage {
  results: IntentResultRecord[];
  /** `afterSeq` of the next page; null when the run has no more matches. */
  next: number | null;
}

export interface ErrorGroup {
  action: ResultAction;
  code: string;
  /** The group's pattern: `Event N not found`. */
  message: string;
  /** The first result's message as it was recorded: `Event 4711 not found`. */
  example: string;
  count: number;
  /** The first result of the group, to link to. */
  firstKind: IntentKind;
  firstKey: string;
}

/** A run's platform calls per bucket and outcome, with its marks (`Ledger.recordCallSeconds`). */
export interface CallTimeline {
  bucketSeconds: number;
  /** Calls per outcome in each bucket: `2xx`, `4xx`, `429`, `5xx`, `reset`, `lost`. */
  points: Array<{ at: Date; calls: Record<string, number> }>;
  /** Rate-limit pauses, stops and resumes, when they happened. */
  marks: Array<{ at: Date; kind: string; count: number }>;
}

export interface Timeline {
  /** The run's platform calls by outcome, when they were recorded (runs since migration 12). */
  calls?: CallTimeline;
  /** Seconds per bucket. */
  bucketSeconds: number;
  points: Array<{ at: Date; results: number; attempts: number; failed: number }>;
}

export interface KeyHistoryEntry {
  result: IntentResultRecord;
  jobName: string;
  runStartedAt: Date;
}

const UNSUCCESSFUL: readonly ResultAction[] = ['failed', 'skipped'];

export class SqlLedgerInsights implements LedgerInsights {
  constructor(private readonly db: () => SqlExecutor) {}

  async searchResults(runId: string, filter: SearchFilter): Promise<SearchPage> {
    const limit = Math.max(0, Math.floor(filter.limit ?? 50));
    const params: unknown[] = [runId];
    const where = ['r.run_id = $1', ...resultConditions(filter, params)];
    // Spelled out so that the planner can use the partial index of migration 7.
    if (filter.actions?.length && filter.actions.every((action) => UNSUCCESSFUL.includes(action)))
      where.push(`r.action IN ('failed', 'skipped')`);
    // Always a range on `seq`, even from the start: without one PGlite's planner read all of
    // a big run through the `(run_id, kind, key)` index and sorted it, for one page.
    where.push(`r.seq > ${param(params, filter.afterSeq ?? 0)}`);
    if (!filter.text) {
      // One more than the page, to know whether there is a next one.
      const sql = `SELECT ${RESULT_COLUMNS} FROM intent_results r WHERE ${where.join(' AND ')} ORDER BY r.seq LIMIT ${param(params, limit + 1)}`;
      const after = filter.afterSeq ?? 0;
      const rows =
        after < UNCHANGED_SEQ_BASE ? (await this.db().query<ResultRow>(sql, params)).map(toResultRecord) : [];
      // Then the keys kept unchanged (migration 11), whose made-up `seq` sorts after every result.
      if (rows.length <= limit && admitsUnchanged(filter)) {
        const unchanged = selectUnchanged(runId, { ...filter, limit: limit + 1 - rows.length });
        rows.push(...(await this.db().query<ResultRow>(unchanged.sql, unchanged.params)).map(toResultRecord));
      }
      const results = rows.slice(0, limit);
      return { results, next: rows.length > limit ? (results[results.length - 1]?.seq ?? null) : null };
    }
    const pattern = param(params, `%${filter.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    const window = Math.max(1, Math.floor(filter.window ?? 5000));
    const hit = searchedText(pattern, filter.textParams ?? [], params);
    const sql = searchWindow(where.join(' AND '), hit, param(params, window), param(params, limit + 1));
    const rows = await this.db().query<ResultRow & { window_end: Int8 | null; window_rows: Int8 }>(
      sql,
      params,
    );
    const results = rows.filter((row) => row.seq !== null).map(toResultRecord);
    const first = rows[0];
    if (results.length > limit)
      return { results: results.slice(0, limit), next: results[limit - 1]?.seq ?? null };
    const full = first !== undefined && toNumber(first.window_rows) === window;
    return { results, next: full && first.window_end !== null ? toNumber(first.window_end) : null };
  }

  async errorGroups(runId: string, limit = 100): Promise<ErrorGroup[]> {
    const rows = await this.db().query<{
      action: ResultAction;
      code: string;
      message: string;
      example: string;
      n: number | string;
      first_kind: IntentKind;
      first_key: string;
    }>(ERROR_GROUPS, [runId, limit]);
    return rows.map((row) => ({
      action: row.action,
      code: row.code,
      message: row.message,
      example: row.example,
      count: toNumber(row.n),
      firstKind: row.first_kind,
      firstKey: row.first_key,
    }));
  }

  async timeline(runId: string, buckets = 240): Promise<Timeline> {
    const span = await this.db().query<{ seconds: number | string | null }>(RESULT_SPAN, [runId]);
    const seconds = Number(span[0]?.seconds ?? 0);
    const bucketSeconds = Math.max(1, Math.ceil(seconds / buckets));
    const rows = await this.db().query<{
      at: Date;
      results: number | string;
      attempts: number | string;
      failed: number | string;
    }>(TIMELINE, [runId, bucketSeconds]);
    const found = new Map(
      rows.map((row) => [
        new Date(row.at).getTime(),
        { results: toNumber(row.results), attempts: toNumber(row.attempts), failed: toNumber(row.failed) },
      ]),
    );
    // Every bucket from one before the first result to one after the last, empty ones as 0:
    // a chart of a quiet stretch (or of a run of one bucket) reads right.
    const times = [...found.keys()];
    const points: Timeline['points'] = [];
    if (times.length > 0) {
      const step = bucketSeconds * 1000;
      const last = Math.max(...times) + step;
      for (let at = Math.min(...times) - step; at <= last; at += step) {
        points.push({ at: new Date(at), ...(found.get(at) ?? { results: 0, attempts: 0, failed: 0 }) });
      }
    }
    const calls = await callTimeline(this.db(), runId, buckets);
    return { bucketSeconds, points, ...(calls ? { calls } : {}) };
  }

  async keyHistory(kind: IntentKind, key: string, runs = 100): Promise<KeyHistoryEntry[]> {
    const rows = await this.db().query<ResultRow & { job_name: string; run_started_at: Date }>(KEY_HISTORY, [
      kind,
      key,
      runs,
    ]);
    return rows.map((row) => ({
      result: toResultRecord(row),
      jobName: row.job_name,
      runStartedAt: new Date(row.run_started_at),
    }));
  }
}

function param(params: unknown[], value: unknown): string {
  params.push(value);
  return `$${params.length}`;
}

/**
 * Whether row `x` holds the text (`pattern`): its key, its message, or one of `names`, each
 * read with `->>` (a lookup, cheaper than reading the whole params as text).
 */
function searchedText(
  pattern: string,
  names: ReadonlyArray<string | readonly string[]>,
  params: unknown[],
): string {
  const like = (value: string) => `${value} ILIKE ${pattern} ESCAPE '\\'`;
  const value = (name: string) => `x.params->>${param(params, name)}`;
  return [
    like('x.key'),
    like('x.error_message'),
    ...names.map((name) =>
      like(typeof name === 'string' ? value(name) : `concat_ws(' ', ${name.map(value).join(', ')})`),
    ),
  ].join(' OR ');
}

/**
 * The next `window` results of the filter (`where`) in `seq` order, then, among them, the
 * first `limit` that hold the text (`hit`, of row `x`). Each row of the window costs a read of
 * its params (about 3 µs on PostgreSQL): the window bounds the time of one call. The stats
 * row (`window_end`, `window_rows`) comes even without a match, to go on from.
 */
function searchWindow(where: string, hit: string, window: string, limit: string): string {
  return `WITH w AS MATERIALIZED (
  SELECT x.seq, (${hit}) AS hit
  FROM (SELECT r.seq, r.key, r.params, r.error_message FROM intent_results r WHERE ${where} ORDER BY r.seq LIMIT ${window}) x),
s AS (SELECT max(seq) AS window_end, count(*) AS window_rows FROM w)
SELECT s.window_end, s.window_rows, ${RESULT_COLUMNS} FROM s
LEFT JOIN LATERAL (SELECT r.* FROM w JOIN intent_results r ON r.seq = w.seq WHERE w.hit ORDER BY w.seq LIMIT ${limit}) r ON true
ORDER BY r.seq`;
}

/**
 * $1 run id, $2 limit. Answered from the partial index of migration 7. A message is grouped
 * without its row prefix (`row 17 (line 18), `), with its quoted values as `"…"` and each
 * run of digits as `N`, so that 500 rows with one problem (each naming its own row, value or
 * platform id) read as one line; the first message of the group is kept as its example.
 * Plain `regexp_replace`: PGlite and PostgreSQL answer alike.
 */
const ERROR_GROUPS = `SELECT r.action, coalesce(r.error_code, '') AS code,
  regexp_replace(regexp_replace(regexp_replace(coalesce(r.error_message, ''),
    '^row [0-9]+( \\(line [0-9]+\\))?, ', ''), '"[^"]*"', '"…"', 'g'), '[0-9]+', 'N', 'g') AS message,
  (array_agg(coalesce(r.error_message, '') ORDER BY r.seq))[1] AS example,
  count(*) AS n, (array_agg(r.kind ORDER BY r.seq))[1] AS first_kind, (array_agg(r.key ORDER BY r.seq))[1] AS first_key
FROM intent_results r WHERE r.run_id = $1 AND r.action IN ('failed', 'skipped')
GROUP BY 1, 2, 3 ORDER BY count(*) DESC, 2, 3 LIMIT $2`;

/** $1 run id: seconds the run has taken (so far): read from the run, not from its results. */
const RESULT_SPAN = `SELECT extract(epoch FROM coalesce(finished_at, now()) - started_at) AS seconds
FROM runs WHERE id = $1`;

/** $1 run id, $2 seconds per bucket. */
const TIMELINE = `SELECT to_timestamp(floor(extract(epoch FROM r.recorded_at) / $2::numeric) * $2::numeric) AS at,
  count(*) AS results, sum(r.attempts) AS attempts, count(*) FILTER (WHERE r.action = 'failed') AS failed
FROM intent_results r WHERE r.run_id = $1 GROUP BY 1 ORDER BY 1`;

/**
 * $1 kind, $2 key, $3 how many runs back. Each of those runs is one lookup in the
 * `(run_id, kind, key)` unique index: no index on `(kind, key)` is kept for this alone. A
 * run that kept the key unchanged (migration 11) reads its chunks of the kind instead.
 */
const KEY_HISTORY = `SELECT x.*, runs.job_name, runs.started_at AS run_started_at
FROM (SELECT id, job_name, started_at, seq FROM runs ORDER BY seq DESC LIMIT $3) runs
CROSS JOIN LATERAL (
  SELECT ${RESULT_COLUMNS} FROM intent_results r WHERE r.run_id = runs.id AND r.kind = $1 AND r.key = $2
  UNION ALL
  (${UNCHANGED_KEY_RESULT} LIMIT 1)
) x
ORDER BY runs.seq DESC`;

/** Marks, not call counts, among a run's call seconds. */
const MARK_KINDS = new Set(['pause', 'stop', 'resume']);

/** A run's calls by outcome per bucket, every bucket of its span; undefined when none were recorded. */
async function callTimeline(
  db: SqlExecutor,
  runId: string,
  buckets: number,
): Promise<CallTimeline | undefined> {
  const { bucketSeconds, rows } = await callBuckets(db, runId, buckets);
  if (rows.length === 0) return undefined;
  const byTime = new Map<number, Record<string, number>>();
  const marks: CallTimeline['marks'] = [];
  for (const row of rows) {
    if (MARK_KINDS.has(row.outcome)) {
      marks.push({ at: row.at, kind: row.outcome, count: row.calls });
      continue;
    }
    const calls = byTime.get(row.at.getTime()) ?? {};
    calls[row.outcome] = row.calls;
    byTime.set(row.at.getTime(), calls);
  }
  const times = rows.map((row) => row.at.getTime());
  const step = bucketSeconds * 1000;
  const points: CallTimeline['points'] = [];
  for (let at = Math.min(...times) - step; at <= Math.max(...times) + step; at += step)
    points.push({ at: new Date(at), calls: byTime.get(at) ?? {} });
  return { bucketSeconds, points, marks };
}
