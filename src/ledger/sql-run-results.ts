import type { IntentKind } from '../model/intent.js';
import type {
  IntentResultInput,
  IntentResultRecord,
  ResultAction,
  ResultCountFilter,
  ResultFilter,
  RunResultCounts,
} from '../model/result-records.js';
import { toNumber, toResultRecord, type Int8, type ResultRow } from './ledger-rows.js';
import * as q from './ledger-sql.js';
import { prepareResultBatch } from './result-batch.js';
import { countResults, selectResults } from './result-query.js';
import type { SqlClient } from './sql-client.js';
import { storableJson } from './storable-json.js';
import {
  admitsUnchanged,
  COUNT_UNCHANGED,
  DELETE_SETTLED_PLANNED,
  INSERT_UNCHANGED,
  selectUnchanged,
  UNCHANGED_PER_ROW,
  UNCHANGED_SEQ_BASE,
} from './unchanged-sql.js';

/** Rows per bulk statement: large enough to amortise a round trip, small enough for memory. */
const CHUNK = 1000;
const PAGE = 1000;
/** Planned intents (a span of `seq`) a statement deletes from at most: short statements, no long lock. */
const SETTLED_BATCH = 10_000;
/**
 * A completed run that deleted at least this many planned intents vacuums the table: the
 * rows it leaves at the end of the file are then given back to the file system.
 */
const VACUUM_AFTER = 20_000;
/**
 * A completed run with at least this many results analyzes the tables it wrote: the
 * embedded ledger has no autovacuum, and a server may have it off, as this machine's has.
 */
const ANALYZE_AFTER = 20_000;

/**
 * A run's results as the ledger stores them (docs/ledger.md, "What a run stores"): one row
 * per intent that was sent, failed or skipped, and the keys of unchanged rows per planned
 * chunk. Reads give both back as results.
 */
export class SqlRunResults {
  constructor(
    private readonly sql: () => SqlClient,
    /** The conference of each run of the batch; throws for a run the ledger does not have. */
    private readonly requireRuns: (runIds: readonly string[]) => Promise<Map<string, number>>,
  ) {}

  async record(results: readonly IntentResultInput[]): Promise<void> {
    if (results.length === 0) return;
    const db = this.sql();
    const conferences = await this.requireRuns(results.map((result) => result.runId));
    const conferenceOf = (runId: string): number => conferences.get(runId) ?? 0;
    // One statement is atomic by itself; bigger inputs are chunked inside one transaction.
    if (results.length <= CHUNK) {
      await db.query(q.RECORD_RESULTS, [storableJson(prepareResultBatch(results, conferenceOf))]);
      return;
    }
    await db.transaction(async (tx) => {
      for (let start = 0; start < results.length; start += CHUNK) {
        const batch = prepareResultBatch(results.slice(start, start + CHUNK), conferenceOf);
        await tx.query(q.RECORD_RESULTS, [storableJson(batch)]);
      }
    });
  }

  async recordUnchanged(
    runId: string,
    items: ReadonlyArray<{ kind: IntentKind; key: string }>,
  ): Promise<void> {
    if (items.length === 0) return;
    await this.requireRuns([runId]);
    const byKind = new Map<IntentKind, string[]>();
    for (const { kind, key } of items) {
      let keys = byKind.get(kind);
      if (!keys) byKind.set(kind, (keys = []));
      keys.push(key);
    }
    const rows: Array<{ kind: IntentKind; n: number; keys: string[] }> = [];
    for (const [kind, keys] of byKind)
      for (let start = 0; start < keys.length; start += UNCHANGED_PER_ROW) {
        const part = keys.slice(start, start + UNCHANGED_PER_ROW);
        rows.push({ kind, n: part.length, keys: part });
      }
    await this.sql().query(INSERT_UNCHANGED, [runId, storableJson(rows)]);
  }

  async results(runId: string, filter: ResultFilter = {}): Promise<IntentResultRecord[]> {
    const recorded =
      (filter.afterSeq ?? 0) < UNCHANGED_SEQ_BASE ? await this.query(selectResults(runId, filter)) : [];
    if (!admitsUnchanged(filter)) return recorded;
    if (filter.limit !== undefined && recorded.length >= filter.limit) return recorded;
    const limit = filter.limit === undefined ? {} : { limit: filter.limit - recorded.length };
    return [...recorded, ...(await this.query(selectUnchanged(runId, { ...filter, ...limit })))];
  }

  async *each(
    runId: string,
    filter: Omit<ResultFilter, 'afterSeq' | 'limit'> = {},
  ): AsyncIterable<IntentResultRecord> {
    let afterSeq: number | undefined;
    for (;;) {
      const page = await this.results(runId, {
        ...filter,
        limit: PAGE,
        ...(afterSeq === undefined ? {} : { afterSeq }),
      });
      yield* page;
      if (page.length < PAGE) return;
      afterSeq = page[page.length - 1]?.seq;
    }
  }

  async counts(runId: string, filter?: ResultCountFilter): Promise<RunResultCounts> {
    const { sql, params } =
      filter === undefined ? { sql: q.COUNT_RESULTS, params: [runId] } : countResults(runId, filter);
    type CountRow = { kind: IntentKind; action: ResultAction; n: number | string };
    const rows = await this.sql().query<CountRow>(sql, params);
    // Unchanged keys were never sent by a worker and carry no error code.
    if (filter === undefined || (!filter.byWorkers && !filter.errorCodes?.length))
      rows.push(...(await this.sql().query<CountRow>(COUNT_UNCHANGED, [runId])));
    const counts: RunResultCounts = {};
    for (const row of rows) {
      const byAction = (counts[row.kind] ??= {});
      byAction[row.action] = (byAction[row.action] ?? 0) + toNumber(row.n);
    }
    return counts;
  }

  /**
   * Once a run has completed, the planned intents that ended in a success are only what a
   * resume would have needed: deleted in short statements, the table vacuumed after many.
   * A big run's statistics are refreshed on another connection meanwhile: `ANALYZE` reads
   * the tables the run wrote, not `run_intents`, so the two wait for nothing of each other
   * and the run's end waits for the longer one only (docs/ledger.md, "What a run stores").
   */
  async dropSettledPlan(runId: string, written: number): Promise<number> {
    const [span] = await this.sql().query<{ first: Int8 | null; last: Int8 | null }>(q.SELECT_PLAN_SPAN, [
      runId,
    ]);
    if (span?.first == null || span.last == null) return 0;
    const first = toNumber(span.first);
    const last = toNumber(span.last);
    const [deleted] = await Promise.all([
      this.deleteSettled(runId, first, last),
      // Fresh statistics after a big run, for a server whose autovacuum is off (this machine's
      // is); the embedded ledger's server is PostgreSQL too (docs/ledger.md).
      written >= ANALYZE_AFTER
        ? this.sql().query('ANALYZE synced_hashes, id_map, intent_results, run_unchanged')
        : undefined,
    ]);
    return deleted;
  }

  private async deleteSettled(runId: string, first: number, last: number): Promise<number> {
    let deleted = 0;
    for (let after = first - 1; after < last; after += SETTLED_BATCH) {
      const rows = await this.sql().query<{ n: Int8 }>(DELETE_SETTLED_PLANNED, [
        runId,
        after,
        Math.min(after + SETTLED_BATCH, last),
      ]);
      deleted += toNumber(rows[0]?.n ?? 0);
    }
    if (deleted >= VACUUM_AFTER) await this.sql().query('VACUUM run_intents');
    return deleted;
  }

  private async query({ sql, params }: { sql: string; params: unknown[] }): Promise<IntentResultRecord[]> {
    return (await this.sql().query<ResultRow>(sql, params)).map(toResultRecord);
  }
}
