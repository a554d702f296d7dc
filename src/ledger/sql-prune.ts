import type { LedgerPruning, PruneRunInfo, PruneRunOptions, PruneTally } from './ledger-pruning.js';
import type { PruneNote } from './ledger-rows.js';
import { toNumber } from './ledger-rows.js';
import { unknownRunError } from './ledger-error.js';
import type { RunStatus } from '../model/run-record.js';
import type { SqlClient } from './sql-client.js';

/** A table holding rows per run, by `run_id`. */
export interface PerRunTable {
  table: string;
  /**
   * The table has `seq` and a unique `(run_id, kind, key)`, and its rows that
   * `synced_hashes (conference_id, kind, key, run_id)` points at are the synced state: kept.
   * Without it, every row of the run goes.
   */
  keepsSyncedRows: boolean;
  /**
   * Its rows of keys a run removed that have no synced hash now are kept too: they name the
   * person last sent under the key (docs/ledger.md, "Removed keys"). Needs `action`.
   */
  keepsRemovedKeys?: boolean;
  /** Added by a later migration: skipped while the ledger has no such table (`to_regclass`). */
  optional?: boolean;
}

/**
 * Every table of per-run rows, in the order they are pruned. `run_intents` before
 * `intent_results`: a planned intent without a result is pending (`pendingIntents`), so a
 * prune cut off half way must never leave a planned intent whose result it already
 * removed. A new per-run table is one more line here.
 */
export const PER_RUN_TABLES: readonly PerRunTable[] = [
  { table: 'run_intents', keepsSyncedRows: true },
  { table: 'intent_results', keepsSyncedRows: true, keepsRemovedKeys: true },
  // Migration 11 (unchanged rows recorded compactly, issue #28 item 1).
  { table: 'run_unchanged', keepsSyncedRows: false, optional: true },
  // Migration 12 (a run's calls per second, issue #29).
  { table: 'run_call_seconds', keepsSyncedRows: false, optional: true },
];

const BATCH = 2000;

/** $1 table name: whether the ledger has it (its schema is on the search path). */
const TABLE_PRESENT = 'SELECT to_regclass($1) IS NOT NULL AS present';

/** $1 job name or NULL. */
const SELECT_RUNS = `SELECT id, seq, job_name, coalesce(conference_id, 0) AS conference_id, status, started_at,
  finished_at, pruned_at, prune IS NOT NULL AS prune_started, options->'retention' AS retention
FROM runs WHERE $1::text IS NULL OR job_name = $1 ORDER BY job_name, coalesce(conference_id, 0), seq`;

/** $1 run id. */
const SELECT_RUN = `SELECT coalesce(conference_id, 0) AS conference_id, prune FROM runs WHERE id = $1`;

/** $1 run id, $2 the note: the first prune's note stays (its counts were taken before any row went). */
const NOTE_PRUNE_STARTED = `UPDATE runs SET prune = coalesce(prune, $2::text::jsonb) WHERE id = $1 RETURNING id`;

/** $1 run id, $2 JSON merged into the note. */
const NOTE_PRUNED = `UPDATE runs SET pruned_at = now(), prune = prune || $2::text::jsonb WHERE id = $1 RETURNING id`;

/** Whether a row of `t` (alias) is one the synced state points at; $1 run id, $2 conference id. */
const SYNCED = (t: string): string => `EXISTS (SELECT 1 FROM synced_hashes s
  WHERE s.conference_id = $2 AND s.kind = ${t}.kind AND s.key = ${t}.key AND s.run_id = $1)`;

/**
 * Whether a row of `t` (alias, with `action`) is a removal, or a send, of a key a run of
 * conference $2 removed and that has no synced hash now: what `removedKeysLastSent` and
 * `lastRemovals` read. The removal is probed in `intent_results_removed` (migration 17), a
 * small index: nearly every row's key was never removed, and is told so by one probe.
 */
const REMOVED_KEY = (
  t: string,
): string => `${t}.action IN ('deleted', 'retired', 'created', 'attached', 'updated')
  AND EXISTS (SELECT 1 FROM intent_results r JOIN runs rr ON rr.id = r.run_id
    WHERE r.kind = ${t}.kind AND r.key = ${t}.key AND r.action IN ('deleted', 'retired')
      AND coalesce(rr.conference_id, 0) = $2)
  AND NOT EXISTS (SELECT 1 FROM synced_hashes s WHERE s.conference_id = $2 AND s.kind = ${t}.kind AND s.key = ${t}.key)`;

/** Whether a row of `t` (alias) of a table that keeps rows is kept (see `PerRunTable`). */
function keptRow(table: PerRunTable, t: string): string {
  if (!table.keepsSyncedRows) return 'false';
  return table.keepsRemovedKeys ? `(${SYNCED(t)} OR (${REMOVED_KEY(t)}))` : SYNCED(t);
}

/**
 * $1 run id, $2 conference id, $3 $4 the last (kind, key) of the previous batch, $5 batch
 * size. One batch in key order through the `(run_id, kind, key)` index (a keyset: kept rows
 * are read once, not once per batch); deletes those it does not keep (`keptRow`).
 */
function deleteBatchKeeping(table: PerRunTable): string {
  const columns = table.keepsRemovedKeys ? 'seq, kind, key, action' : 'seq, kind, key';
  return `WITH slice AS MATERIALIZED (
  SELECT ${columns} FROM ${table.table} WHERE run_id = $1 AND (kind, key) > ($3::text, $4::text)
  ORDER BY kind, key LIMIT $5),
gone AS (
  DELETE FROM ${table.table} d USING slice WHERE d.seq = slice.seq AND NOT ${keptRow(table, 'slice')}
  RETURNING pg_column_size(d.*) AS bytes),
last AS (SELECT kind, key FROM slice ORDER BY kind DESC, key DESC LIMIT 1)
SELECT (SELECT count(*) FROM slice) AS scanned, (SELECT kind FROM last) AS last_kind,
  (SELECT key FROM last) AS last_key, (SELECT count(*) FROM gone) AS removed,
  (SELECT coalesce(sum(bytes), 0) FROM gone) AS bytes`;
}

/** $1 run id, $2 batch size: any `$2` rows of the run, by their physical address (a TID scan). */
function deleteBatch(table: string): string {
  return `WITH gone AS (
  DELETE FROM ${table} d WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${table} WHERE run_id = $1 LIMIT $2))
  RETURNING pg_column_size(d.*) AS bytes)
SELECT count(*) AS removed, coalesce(sum(bytes), 0) AS bytes FROM gone`;
}

/** $1 run id, $2 conference id: what a prune would remove and keep. */
function measureTable(table: PerRunTable): string {
  const kept = keptRow(table, 't');
  return `SELECT count(*) FILTER (WHERE NOT ${kept}) AS removed, count(*) FILTER (WHERE ${kept}) AS kept,
  coalesce(sum(pg_column_size(t.*)) FILTER (WHERE NOT ${kept}), 0) AS bytes
FROM ${table.table} t WHERE t.run_id = $1 AND $2::integer IS NOT NULL`;
}

interface RunInfoRow {
  id: string;
  seq: number | string;
  job_name: string;
  conference_id: number | string;
  status: string;
  started_at: Date;
  finished_at: Date | null;
  pruned_at: Date | null;
  prune_started: boolean;
  retention: unknown;
}

interface CountRow {
  removed: number | string;
  kept?: number | string;
  bytes: number | string;
}

/** See `LedgerPruning`. */
export class SqlPruning implements LedgerPruning {
  constructor(
    private readonly sql: () => SqlClient,
    private readonly tables: readonly PerRunTable[] = PER_RUN_TABLES,
  ) {}

  async runs(filter: { jobName?: string } = {}): Promise<PruneRunInfo[]> {
    const rows = await this.sql().query<RunInfoRow>(SELECT_RUNS, [filter.jobName ?? null]);
    return rows.map((row) => ({
      id: row.id,
      seq: toNumber(row.seq),
      jobName: row.job_name,
      conferenceId: toNumber(row.conference_id),
      status: row.status as RunStatus,
      startedAt: new Date(row.started_at),
      finishedAt: row.finished_at === null ? null : new Date(row.finished_at),
      pruning: row.pruned_at !== null ? 'done' : row.prune_started ? 'started' : 'none',
      retention: row.retention ?? undefined,
    }));
  }

  async measure(runId: string): Promise<PruneTally> {
    const { conferenceId } = await this.run(runId);
    const tally: PruneTally = { tables: {}, bytes: 0 };
    for (const table of await this.present()) {
      const counted = await this.measureTable(table, runId, conferenceId);
      tally.tables[table.table] = { removed: counted.removed, kept: counted.kept };
      tally.bytes += counted.bytes;
    }
    return tally;
  }

  private async measureTable(
    table: PerRunTable,
    runId: string,
    conferenceId: number,
  ): Promise<{ removed: number; kept: number; bytes: number }> {
    const [row] = await this.sql().query<CountRow>(measureTable(table), [runId, conferenceId]);
    return {
      removed: toNumber(row?.removed ?? 0),
      kept: toNumber(row?.kept ?? 0),
      bytes: toNumber(row?.bytes ?? 0),
    };
  }

  async pruneRun(runId: string, options: PruneRunOptions): Promise<PruneTally> {
    const { note: earlier } = await this.run(runId);
    const batchSize = Math.max(1, Math.floor(options.batchSize ?? BATCH));
    const tables = await this.present();
    // Counted before the first row goes: a prune cut off and run again still knows what the run had.
    const rowsBefore = earlier?.rows_before ?? rowCounts(await this.measure(runId));
    const note: PruneNote = {
      started_at: new Date().toISOString(),
      rule: options.rule,
      counts_by_kind: options.countsByKind,
      rows_before: rowsBefore,
    };
    await this.sql().query(NOTE_PRUNE_STARTED, [runId, JSON.stringify(note)]);
    const { conferenceId } = await this.run(runId);
    const tally: PruneTally = { tables: {}, bytes: 0 };
    for (const table of tables) {
      const pass = await this.deleteRows(table, runId, conferenceId, batchSize);
      const left = (await this.measureTable(table, runId, conferenceId)).kept;
      const removed = Math.max(pass.removed, (rowsBefore[table.table] ?? 0) - left);
      tally.tables[table.table] = { removed, kept: left };
      tally.bytes += pass.bytes;
    }
    const removed = Object.fromEntries(Object.entries(tally.tables).map(([t, n]) => [t, n.removed]));
    const kept = Object.fromEntries(Object.entries(tally.tables).map(([t, n]) => [t, n.kept]));
    await this.sql().query(NOTE_PRUNED, [runId, JSON.stringify({ removed, kept })]);
    return tally;
  }

  /** Deletes the run's rows of one table in batches, each its own statement; returns the bytes. */
  private async deleteRows(
    table: PerRunTable,
    runId: string,
    conferenceId: number,
    batchSize: number,
  ): Promise<{ removed: number; bytes: number }> {
    const done = { removed: 0, bytes: 0 };
    const add = (row: CountRow | undefined): void => {
      done.removed += toNumber(row?.removed ?? 0);
      done.bytes += toNumber(row?.bytes ?? 0);
    };
    if (!table.keepsSyncedRows) {
      for (;;) {
        const [row] = await this.sql().query<CountRow>(deleteBatch(table.table), [runId, batchSize]);
        add(row);
        if (toNumber(row?.removed ?? 0) < batchSize) return done;
      }
    }
    let after: [string, string] = ['', ''];
    for (;;) {
      const [row] = await this.sql().query<
        CountRow & { scanned: number | string; last_kind: string; last_key: string }
      >(deleteBatchKeeping(table), [runId, conferenceId, after[0], after[1], batchSize]);
      add(row);
      if (row === undefined || toNumber(row.scanned) < batchSize) return done;
      after = [row.last_kind, row.last_key];
    }
  }

  private async run(runId: string): Promise<{ conferenceId: number; note: PruneNote | null }> {
    const [row] = await this.sql().query<{ conference_id: number | string; prune: PruneNote | null }>(
      SELECT_RUN,
      [runId],
    );
    if (row === undefined) throw unknownRunError(runId);
    return { conferenceId: toNumber(row.conference_id), note: row.prune };
  }

  private async present(): Promise<PerRunTable[]> {
    const present: PerRunTable[] = [];
    for (const table of this.tables) {
      if (!table.optional) {
        present.push(table);
        continue;
      }
      const [row] = await this.sql().query<{ present: boolean }>(TABLE_PRESENT, [table.table]);
      if (row?.present) present.push(table);
    }
    return present;
  }
}

function rowCounts(tally: PruneTally): Record<string, number> {
  return Object.fromEntries(Object.entries(tally.tables).map(([table, n]) => [table, n.removed + n.kept]));
}
