import type { IntentKind } from '../model/intent.js';
import type { KeyHold, LedgerHolds } from './ledger-holds.js';
import type { SqlClient } from './sql-client.js';

/** $1 conference id. */
const SELECT_HOLDS = `SELECT kind, client_id, run_id, job_name, error_code, held_at FROM key_holds
WHERE conference_id = $1 ORDER BY kind, client_id`;

/** $1 conference id, $2 kinds, $3 client_ids, $4 run ids, $5 job names, $6 codes. */
const UPSERT_HOLDS = `INSERT INTO key_holds (conference_id, kind, client_id, run_id, job_name, error_code)
SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
ON CONFLICT (conference_id, kind, client_id) DO UPDATE SET run_id = excluded.run_id,
  job_name = excluded.job_name, error_code = excluded.error_code, held_at = now()`;

/** $1 conference id, $2 kind, $3 client_ids. */
const DELETE_HOLDS = `WITH d AS (DELETE FROM key_holds WHERE conference_id = $1 AND kind = $2
  AND client_id = ANY($3::text[]) RETURNING 1) SELECT count(*)::int AS n FROM d`;

/** The key holds of one conference (migration 15). */
export class SqlHolds implements LedgerHolds {
  constructor(
    private readonly sql: () => SqlClient,
    private readonly conferenceId: number,
  ) {}

  async list(): Promise<KeyHold[]> {
    const rows = await this.sql().query<{
      kind: IntentKind;
      client_id: string;
      run_id: string;
      job_name: string;
      error_code: string;
      held_at: Date | string;
    }>(SELECT_HOLDS, [this.conferenceId]);
    return rows.map((row) => ({
      kind: row.kind,
      clientId: row.client_id,
      runId: row.run_id,
      jobName: row.job_name,
      errorCode: row.error_code,
      heldAt: new Date(row.held_at),
    }));
  }

  async hold(holds: ReadonlyArray<Omit<KeyHold, 'heldAt'>>): Promise<void> {
    if (holds.length === 0) return;
    await this.sql().query(UPSERT_HOLDS, [
      this.conferenceId,
      holds.map((hold) => hold.kind),
      holds.map((hold) => hold.clientId),
      holds.map((hold) => hold.runId),
      holds.map((hold) => hold.jobName),
      holds.map((hold) => hold.errorCode),
    ]);
  }

  async release(kind: IntentKind, clientIds: readonly string[]): Promise<number> {
    if (clientIds.length === 0) return 0;
    const rows = await this.sql().query<{ n: number }>(DELETE_HOLDS, [this.conferenceId, kind, clientIds]);
    return rows[0]?.n ?? 0;
  }
}
