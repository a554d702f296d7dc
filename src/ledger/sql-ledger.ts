import { hostname } from 'node:os';
import { CODE } from '../errors/codes.js';
import type { IntentKind } from '../model/intent.js';
import { isSecretName, redactParams } from '../log/redaction.js';
import type { JobLock, Ledger, LockJobOptions } from './ledger.js';
import type { HashEntry, PlatformIdEntry } from '../model/sync-state.js';
import type { PendingFilter, PlannedIntent, PlannedIntentRecord } from '../model/planned-intent.js';
import type {
  ActionCounts,
  IntentResultInput,
  IntentResultRecord,
  ResultAction,
  ResultCountFilter,
  ResultFilter,
  RunResultCounts,
} from '../model/result-records.js';
import type { NewRun, RunRecord, RunStatus } from '../model/run-record.js';
import { LedgerBusyError, LedgerError, unknownRunError } from './ledger-error.js';
import {
  toNumber,
  toPlannedIntentRecord,
  toResultRecord,
  toRunRecord,
  type PlannedIntentRow,
  type ResultRow,
  type RunRow,
} from './ledger-rows.js';
import * as q from './ledger-sql.js';
import { type LedgerInsights, SqlLedgerInsights } from './ledger-insights.js';
import { prepareResultBatch } from './result-batch.js';
import { storableJson } from './storable-json.js';
import {
  countResults,
  reopenResults,
  selectPending,
  selectPlannedByResult,
  selectResults,
} from './result-query.js';
import { BatchResultWriter, type ResultWriter, type ResultWriterOptions } from './result-writer.js';
import { newRunId } from './run-id.js';
import type { SqlClient, SqlExecutor } from './sql-client.js';

/** Rows per bulk statement: large enough to amortise a round trip, small enough for memory. */
const CHUNK = 1000;
const PAGE = 1000;
const UNIQUE_VIOLATION = '23505';

/** The one Ledger implementation; the adapters differ only in their `SqlClient`. */
export class SqlLedger implements Ledger {
  private closed = false;
  /** Runs known to exist: runs are never deleted, so each id is checked once (see migration 2). */
  private readonly knownRuns = new Set<string>();

  constructor(
    private readonly db: SqlClient,
    readonly kind: 'embedded' | 'postgres',
    readonly description: string,
  ) {}

  async createRun(run: NewRun): Promise<RunRecord> {
    const params = (id: string): unknown[] => [id, run.jobName, run.mode, storableJson(run.options ?? {})];
    let created: RunRecord;
    try {
      created = toRunRecord(one(await this.sql().query<RunRow>(q.INSERT_RUN, params(newRunId()))));
    } catch (error) {
      // Two runs started in the same second drew the same 16-bit suffix: draw again, once.
      if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw error;
      created = toRunRecord(one(await this.sql().query<RunRow>(q.INSERT_RUN, params(newRunId()))));
    }
    this.knownRuns.add(created.id);
    return created;
  }

  async finishRun(runId: string, status: RunStatus, counts?: ActionCounts): Promise<RunRecord> {
    const totals = counts ?? sumByAction(await this.resultCounts(runId));
    const rows = await this.sql().query<RunRow>(q.FINISH_RUN, [runId, status, JSON.stringify(totals)]);
    if (rows.length === 0) throw unknownRunError(runId);
    return toRunRecord(one(rows));
  }

  async setRunStatus(runId: string, status: RunStatus): Promise<void> {
    const rows = await this.sql().query(q.SET_RUN_STATUS, [runId, status]);
    if (rows.length === 0) throw unknownRunError(runId);
  }

  async mergeRunOptions(runId: string, options: Record<string, unknown>): Promise<void> {
    const rows = await this.sql().query(q.MERGE_RUN_OPTIONS, [runId, JSON.stringify(options)]);
    if (rows.length === 0) throw unknownRunError(runId);
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const rows = await this.sql().query<RunRow>(q.SELECT_RUN, [runId]);
    return rows[0] === undefined ? undefined : toRunRecord(rows[0]);
  }

  async claimRun(runId: string): Promise<() => Promise<void>> {
    const release = await this.sql().tryLock(`run:${runId}`);
    if (release === undefined) {
      throw new LedgerError(
        `Run ${runId} is being worked on by another evsync process (its run, a resume or a retry of it). ` +
          'Wait for that to end (see `evsync runs`), then try again.',
        { code: CODE.EVSYNC_RUN_BUSY },
      );
    }
    return release;
  }

  async lockJob(jobName: string, options: LockJobOptions = {}): Promise<JobLock> {
    const name = `job:${jobName}`;
    let release = await this.sql().tryLock(name);
    if (release === undefined) {
      const holder = await this.jobHolder(jobName);
      if (options.wait === undefined) throw jobBusy(jobName, holder);
      options.wait(`job "${jobName}" is being run by ${holder.text}`);
      release = await this.sql().tryLock(name, {
        wait: true,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (release === undefined) {
        throw new LedgerBusyError(
          `Stopped while waiting for job "${jobName}" (run by ${holder.text}): nothing was run.`,
          CODE.EVSYNC_JOB_BUSY,
          `job "${jobName}" is being run by ${holder.text}`,
        );
      }
    }
    const unlock = release;
    try {
      await this.sql().query(q.NOTE_JOB_LOCK, [jobName, process.pid, hostname()]);
    } catch (error) {
      await unlock();
      throw error;
    }
    let released = false;
    return {
      jobName,
      holding: async (runId) => {
        await this.sql().query(q.NOTE_JOB_LOCK_RUN, [jobName, runId]);
      },
      release: async () => {
        if (released) return;
        released = true;
        await unlock();
      },
    };
  }

  /** Who holds a job's lock, as the holder noted it (see `NOTE_JOB_LOCK`), in words. */
  private async jobHolder(jobName: string): Promise<JobHolder> {
    const rows = await this.sql().query<{
      run_id: string | null;
      pid: number;
      host: string;
      locked_at: Date;
    }>(q.SELECT_JOB_LOCK, [jobName]);
    const row = rows[0];
    if (row === undefined) return { text: 'another evsync process' };
    const since = new Date(row.locked_at).toISOString().replace('T', ' ').slice(0, 19);
    const where = `process ${row.pid} on ${row.host}`;
    return {
      text:
        row.run_id === null
          ? `another evsync process (${where}, planning since ${since} UTC)`
          : `run ${row.run_id} (${where}, since ${since} UTC)`,
      pid: row.pid,
      host: row.host,
    };
  }

  async processGone(run: RunRecord): Promise<boolean> {
    if (run.status !== 'running') return false;
    const db = this.sql();
    if (await db.isLocked(`run:${run.id}`)) return false;
    if (!(await db.isLocked(`job:${run.jobName}`))) return true;
    // The job's lock is held, by this run (just created, not claimed yet) or by a later one.
    const [holder] = await db.query<{ run_id: string | null }>(q.SELECT_JOB_LOCK, [run.jobName]);
    return holder?.run_id !== run.id;
  }

  async listRuns(limit = 20): Promise<RunRecord[]> {
    const rows = await this.sql().query<RunRow>(q.SELECT_RUNS, [Math.max(0, Math.floor(limit))]);
    return rows.map(toRunRecord);
  }

  async recordPlannedIntents(runId: string, intents: readonly PlannedIntent[]): Promise<void> {
    if (intents.length === 0) return;
    await this.requireRuns([runId]);
    const rows = dedupe(
      intents.map((intent) => ({
        kind: intent.kind,
        key: intent.key,
        op: intent.op,
        planned_action: intent.plannedAction,
        params: redactParams(intent.params),
        redacted_params: Object.keys(intent.params).filter(isSecretName),
        origin: intent.origin,
        depends_on: intent.dependsOn,
        hash: intent.hash,
      })),
    );
    await this.sql().transaction(async (tx) => {
      for (let start = 0; start < rows.length; start += CHUNK) {
        await tx.query(q.INSERT_PLANNED, [runId, storableJson(rows.slice(start, start + CHUNK))]);
      }
    });
  }

  async countPlanned(runId: string): Promise<number> {
    const rows = await this.sql().query<{ n: number | string }>(q.COUNT_PLANNED, [runId]);
    return toNumber(rows[0]?.n ?? 0);
  }

  async pendingIntents(runId: string, filter?: PendingFilter): Promise<PlannedIntentRecord[]> {
    const { sql, params } = selectPending(runId, filter);
    return (await this.sql().query<PlannedIntentRow>(sql, params)).map(toPlannedIntentRecord);
  }

  async markSendStarted(
    runId: string,
    intents: ReadonlyArray<{ kind: IntentKind; key: string }>,
  ): Promise<void> {
    if (intents.length === 0) return;
    const marks = intents.map(({ kind, key }) => ({ kind, key }));
    await this.sql().query(q.MARK_SEND_STARTED, [runId, storableJson(marks)]);
  }

  async reopenIntents(runId: string, filter: ResultFilter): Promise<number> {
    const { sql, params } = reopenResults(runId, filter);
    const rows = await this.sql().query<{ n: number | string }>(sql, params);
    return toNumber(rows[0]?.n ?? 0);
  }

  async plannedByResult(runId: string, filter: ResultFilter): Promise<PlannedIntentRecord[]> {
    const { sql, params } = selectPlannedByResult(runId, filter);
    return (await this.sql().query<PlannedIntentRow>(sql, params)).map(toPlannedIntentRecord);
  }

  async recordResults(results: readonly IntentResultInput[]): Promise<void> {
    if (results.length === 0) return;
    const db = this.sql();
    await this.requireRuns(results.map((result) => result.runId));
    // One statement is atomic by itself; bigger inputs are chunked inside one transaction.
    if (results.length <= CHUNK) {
      await db.query(q.RECORD_RESULTS, [storableJson(prepareResultBatch(results))]);
      return;
    }
    await db.transaction(async (tx) => {
      for (let start = 0; start < results.length; start += CHUNK) {
        const batch = prepareResultBatch(results.slice(start, start + CHUNK));
        await tx.query(q.RECORD_RESULTS, [storableJson(batch)]);
      }
    });
  }

  resultWriter(options?: ResultWriterOptions): ResultWriter {
    return new BatchResultWriter((results) => this.recordResults(results), options);
  }

  async results(runId: string, filter?: ResultFilter): Promise<IntentResultRecord[]> {
    const { sql, params } = selectResults(runId, filter);
    return (await this.sql().query<ResultRow>(sql, params)).map(toResultRecord);
  }

  async *eachResult(
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

  async resultCounts(runId: string, filter?: ResultCountFilter): Promise<RunResultCounts> {
    const { sql, params } =
      filter === undefined ? { sql: q.COUNT_RESULTS, params: [runId] } : countResults(runId, filter);
    const rows = await this.sql().query<{ kind: IntentKind; action: ResultAction; n: number | string }>(
      sql,
      params,
    );
    const counts: RunResultCounts = {};
    for (const row of rows) (counts[row.kind] ??= {})[row.action] = toNumber(row.n);
    return counts;
  }

  insights(): LedgerInsights {
    return new SqlLedgerInsights(() => this.sql());
  }

  async getPlatformId(kind: IntentKind, clientId: string): Promise<number | undefined> {
    const rows = await this.sql().query<{ platform_id: string | number }>(q.SELECT_ID, [kind, clientId]);
    return rows[0] === undefined ? undefined : toNumber(rows[0].platform_id);
  }

  async setPlatformIds(entries: readonly PlatformIdEntry[]): Promise<void> {
    const rows = dedupe(entries.map((e) => ({ kind: e.kind, key: e.clientId, platform_id: e.platformId })));
    await this.sql().transaction((tx) => inChunks(tx, q.UPSERT_IDS, rows));
  }

  async loadIdMap(kind: IntentKind): Promise<Map<string, number>> {
    const rows = await this.sql().query<{ client_id: string; platform_id: string | number }>(q.SELECT_IDS, [
      kind,
    ]);
    return new Map(rows.map((row) => [row.client_id, toNumber(row.platform_id)]));
  }

  async removePlatformIds(kind: IntentKind, clientIds: readonly string[]): Promise<void> {
    const rows = clientIds.map((key) => ({ kind, key }));
    await this.sql().transaction((tx) => inChunks(tx, q.DELETE_IDS, rows));
  }

  async loadHashes(kind: IntentKind): Promise<Map<string, string>> {
    const rows = await this.sql().query<{ key: string; hash: string }>(q.SELECT_HASHES, [kind]);
    return new Map(rows.map((row) => [row.key, row.hash]));
  }

  async hashesOf(kind: IntentKind, keys: readonly string[]): Promise<Map<string, string>> {
    const hashes = new Map<string, string>();
    for (let start = 0; start < keys.length; start += 5_000) {
      const rows = await this.sql().query<{ key: string; hash: string }>(q.SELECT_HASHES_OF, [
        kind,
        keys.slice(start, start + 5_000),
      ]);
      for (const row of rows) hashes.set(row.key, row.hash);
    }
    return hashes;
  }

  async syncedParamNames(kind: IntentKind, keys: readonly string[]): Promise<Map<string, string[]>> {
    const names = new Map<string, string[]>();
    // Bounded statements: a plan may update every user of a big import.
    for (let start = 0; start < keys.length; start += 5_000) {
      const rows = await this.sql().query<{ key: string; names: string[] }>(q.SELECT_SYNCED_PARAM_NAMES, [
        kind,
        keys.slice(start, start + 5_000),
      ]);
      for (const row of rows) names.set(row.key, row.names);
    }
    return names;
  }

  async setHashes(entries: readonly HashEntry[]): Promise<void> {
    const rows = dedupe(entries.map((e) => ({ kind: e.kind, key: e.key, hash: e.hash, run_id: e.runId })));
    await this.sql().transaction((tx) => inChunks(tx, q.UPSERT_HASHES, rows));
  }

  async removeHashes(kind: IntentKind, keys: readonly string[]): Promise<void> {
    const rows = keys.map((key) => ({ kind, key }));
    await this.sql().transaction((tx) => inChunks(tx, q.DELETE_HASHES, rows));
  }

  async handledLater(runId: string): Promise<Set<string>> {
    const rows = await this.sql().query<{ kind: string; key: string }>(q.SELECT_HANDLED_LATER, [runId]);
    return new Set(rows.map((row) => `${row.kind}\u0000${row.key}`));
  }

  async knownKeys(kind: IntentKind, jobName: string): Promise<string[]> {
    return (await this.sql().query<{ key: string }>(q.SELECT_KNOWN_KEYS, [kind, jobName])).map(
      (row) => row.key,
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.close();
  }

  /** Refuses rows of a run the ledger does not have, before any of them is written. */
  private async requireRuns(runIds: readonly string[]): Promise<void> {
    const unseen = [...new Set(runIds)].filter((id) => !this.knownRuns.has(id));
    if (unseen.length === 0) return;
    const found = await this.sql().query<{ id: string }>(q.SELECT_RUN_IDS, [JSON.stringify(unseen)]);
    for (const { id } of found) this.knownRuns.add(id);
    const missing = unseen.find((id) => !this.knownRuns.has(id));
    if (missing !== undefined) throw unknownRunError(missing);
  }

  private sql(): SqlClient {
    if (this.closed) {
      throw new LedgerError(`The ledger (${this.description}) was closed; open it again with openLedger().`, {
        code: CODE.EVSYNC_LEDGER_CLOSED,
      });
    }
    return this.db;
  }
}

interface JobHolder {
  text: string;
  pid?: number;
  host?: string;
}

function jobBusy(jobName: string, holder: JobHolder): LedgerBusyError {
  const stop =
    holder.pid === undefined
      ? 'stop it (Ctrl-C in its terminal)'
      : `stop it (Ctrl-C in its terminal, or \`kill ${holder.pid}\` on ${holder.host ?? 'its machine'})`;
  return new LedgerBusyError(
    `Job "${jobName}" is already being run by ${holder.text}: two runs of one job at once would send its rows twice. ` +
      `Wait for it with --wait (run, resume and retry then wait for it to end and go on), or ${stop}; ` +
      'a run that was killed lets go of the job at once.',
    CODE.EVSYNC_JOB_BUSY,
    `job "${jobName}" is being run by ${holder.text}`,
  );
}

async function inChunks(tx: SqlExecutor, statement: string, rows: readonly object[]): Promise<void> {
  for (let start = 0; start < rows.length; start += CHUNK) {
    await tx.query(statement, [storableJson(rows.slice(start, start + CHUNK))]);
  }
}

/** Last entry wins per (kind, key): one upsert statement cannot touch a row twice. */
function dedupe<T extends { kind: string; key: string }>(rows: readonly T[]): T[] {
  return [...new Map(rows.map((row) => [`${row.kind}\u0000${row.key}`, row])).values()];
}

function sumByAction(counts: RunResultCounts): ActionCounts {
  const totals: ActionCounts = {};
  for (const byAction of Object.values(counts)) {
    for (const [action, n] of Object.entries(byAction) as [ResultAction, number][]) {
      totals[action] = (totals[action] ?? 0) + n;
    }
  }
  return totals;
}

function one<T>(rows: T[]): T {
  const [row] = rows;
  if (row === undefined) throw new Error('The ledger statement returned no row.');
  return row;
}
