import { toNumber, type Int8 } from './ledger-rows.js';
import type { SqlClient } from './sql-client.js';

/**
 * A run's platform calls per second and outcome, and its marks (migration 12): `2xx`, `4xx`,
 * `429`, `5xx`, `reset`, `lost` count calls; `pause` (a 429 that paused every call),
 * `stop` and `resume` mark moments. Recorded by every process that sends for the run.
 */
export interface CallSecond {
  runId: string;
  /** The second (whole). */
  at: Date;
  outcome: string;
  calls: number;
}

/** $1 JSON array of `{run_id, at, outcome, calls}`: added to what is there. */
const RECORD = `INSERT INTO run_call_seconds (run_id, at, outcome, calls)
SELECT run_id, at, outcome, calls FROM jsonb_to_recordset($1::text::jsonb)
  AS x(run_id text, at timestamptz, outcome text, calls integer)
ON CONFLICT (run_id, at, outcome) DO UPDATE SET calls = run_call_seconds.calls + excluded.calls`;

/** $1 run id: the span of its seconds. */
const SPAN = `SELECT extract(epoch FROM max(at) - min(at)) AS seconds FROM run_call_seconds WHERE run_id = $1`;

/** $1 run id, $2 seconds per bucket. */
const BUCKETS = `SELECT to_timestamp(floor(extract(epoch FROM at) / $2::numeric) * $2::numeric) AS at, outcome,
  sum(calls) AS calls FROM run_call_seconds WHERE run_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`;

export async function recordCallSeconds(db: SqlClient, rows: readonly CallSecond[]): Promise<void> {
  if (rows.length === 0) return;
  const json = rows.map((row) => ({
    run_id: row.runId,
    at: row.at.toISOString(),
    outcome: row.outcome,
    calls: row.calls,
  }));
  await db.query(RECORD, [JSON.stringify(json)]);
}

/** A run's calls in about `buckets` buckets: `{bucketSeconds, rows}` in time order. */
export async function callBuckets(
  db: Pick<SqlClient, 'query'>,
  runId: string,
  buckets: number,
): Promise<{ bucketSeconds: number; rows: Array<{ at: Date; outcome: string; calls: number }> }> {
  const span = await db.query<{ seconds: number | string | null }>(SPAN, [runId]);
  const bucketSeconds = Math.max(1, Math.ceil(Number(span[0]?.seconds ?? 0) / buckets));
  const rows = await db.query<{ at: Date; outcome: string; calls: Int8 }>(BUCKETS, [runId, bucketSeconds]);
  return {
    bucketSeconds,
    rows: rows.map((row) => ({ at: new Date(row.at), outcome: row.outcome, calls: toNumber(row.calls) })),
  };
}
