import type { IntentKind } from '../model/intent.js';
import type { IntentResultRecord, ResultAction, ResultFilter } from '../model/result-records.js';
import { toNumber, toResultRecord, type ResultRow } from './ledger-rows.js';
import { RESULT_COLUMNS } from './ledger-sql.js';
import { resultConditions } from './result-query.js';
import type { SqlExecutor } from './sql-client.js';

/**
 * What a person browsing the ledger asks that a run never does (docs/dashboard.md): a
 * search, errors grouped, results over time, one key's history. Read-only, one SQL
 * dialect for PGlite and PostgreSQL, and keyset-paged like `Ledger.results`.
 */
export interface LedgerInsights {
  /** `Ledger.results` with a text search: `limit` results after `afterSeq`, in `seq` order. */
  searchResults(runId: string, filter: SearchFilter): Promise<IntentResultRecord[]>;
  /** Failed and skipped results of a run with a code, grouped by code and message, most first. */
  errorGroups(runId: string, limit?: number): Promise<ErrorGroup[]>;
  /** Results per time bucket over the run, for a chart; at most about `buckets` of them. */
  timeline(runId: string, buckets?: number): Promise<Timeline>;
  /** This key's results in the newest `runs` runs of the ledger, newest first. */
  keyHistory(kind: IntentKind, key: string, runs?: number): Promise<KeyHistoryEntry[]>;
}

export interface SearchFilter extends Omit<ResultFilter, 'since'> {
  /**
   * Matched, case-insensitively, anywhere in the key (client_id) or the stored params
   * (an e-mail address, a name). Params are stored redacted, so a secret never matches.
   */
  text?: string;
}

export interface ErrorGroup {
  action: ResultAction;
  code: string;
  message: string;
  count: number;
  /** The first result of the group, to link to. */
  firstKind: IntentKind;
  firstKey: string;
}

export interface Timeline {
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

  async searchResults(runId: string, filter: SearchFilter): Promise<IntentResultRecord[]> {
    const params: unknown[] = [runId];
    const where = ['r.run_id = $1', ...resultConditions(filter, params)];
    // Spelled out so that the planner can use the partial index of migration 7.
    if (filter.actions?.length && filter.actions.every((action) => UNSUCCESSFUL.includes(action)))
      where.push(`r.action IN ('failed', 'skipped')`);
    if (filter.text) {
      params.push(`%${filter.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`(r.key ILIKE $${params.length} OR r.params::text ILIKE $${params.length})`);
    }
    if (filter.afterSeq !== undefined) {
      params.push(filter.afterSeq);
      where.push(`r.seq > $${params.length}`);
    }
    params.push(Math.max(0, Math.floor(filter.limit ?? 50)));
    const sql = `SELECT ${RESULT_COLUMNS} FROM intent_results r WHERE ${where.join(' AND ')} ORDER BY r.seq LIMIT $${params.length}`;
    return (await this.db().query<ResultRow>(sql, params)).map(toResultRecord);
  }

  async errorGroups(runId: string, limit = 100): Promise<ErrorGroup[]> {
    const rows = await this.db().query<{
      action: ResultAction;
      code: string;
      message: string;
      n: number | string;
      first_kind: IntentKind;
      first_key: string;
    }>(ERROR_GROUPS, [runId, limit]);
    return rows.map((row) => ({
      action: row.action,
      code: row.code,
      message: row.message,
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
    return { bucketSeconds, points };
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

/** $1 run id, $2 limit. Answered from the partial index of migration 7. */
const ERROR_GROUPS = `SELECT r.action, coalesce(r.error_code, '') AS code, coalesce(r.error_message, '') AS message,
  count(*) AS n, (array_agg(r.kind ORDER BY r.seq))[1] AS first_kind, (array_agg(r.key ORDER BY r.seq))[1] AS first_key
FROM intent_results r WHERE r.run_id = $1 AND r.action IN ('failed', 'skipped')
GROUP BY 1, 2, 3 ORDER BY count(*) DESC, 2, 3 LIMIT $2`;

/** $1 run id: seconds from the first result to the last. */
const RESULT_SPAN = `SELECT extract(epoch FROM max(recorded_at) - min(recorded_at)) AS seconds
FROM intent_results WHERE run_id = $1`;

/** $1 run id, $2 seconds per bucket. */
const TIMELINE = `SELECT to_timestamp(floor(extract(epoch FROM r.recorded_at) / $2::numeric) * $2::numeric) AS at,
  count(*) AS results, sum(r.attempts) AS attempts, count(*) FILTER (WHERE r.action = 'failed') AS failed
FROM intent_results r WHERE r.run_id = $1 GROUP BY 1 ORDER BY 1`;

/**
 * $1 kind, $2 key, $3 how many runs back. Each of those runs is one lookup in the
 * `(run_id, kind, key)` unique index: no index on `(kind, key)` is kept for this alone.
 */
const KEY_HISTORY = `SELECT ${RESULT_COLUMNS}, runs.job_name, runs.started_at AS run_started_at
FROM (SELECT id, job_name, started_at, seq FROM runs ORDER BY seq DESC LIMIT $3) runs
JOIN intent_results r ON r.run_id = runs.id AND r.kind = $1 AND r.key = $2
ORDER BY runs.seq DESC`;
