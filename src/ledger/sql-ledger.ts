import type { FlatParams } from '../model/params.js';
import { CODE } from '../errors/codes.js';
import type { ConferenceRecord } from '../model/conference.js';
import type { IntentKind } from '../model/intent.js';
import { isSecretName, redactParams } from '../log/redaction.js';
import type {
  AdoptedState,
  JobLock,
  JobRuns,
  KeyOutcome,
  KeyRemoval,
  Ledger,
  LockJobOptions,
  RunListFilter,
} from './ledger.js';
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
import { LedgerError, unknownRunError } from './ledger-error.js';
import {
  one,
  toNumber,
  type Int8,
  toPlannedIntentRecord,
  toRunRecord,
  type PlannedIntentRow,
  type RunRow,
} from './ledger-rows.js';
import * as q from './ledger-sql.js';
import { SqlConferences } from './sql-conferences.js';
import { SqlLocks } from './sql-locks.js';
import { dedupe, SqlSyncState } from './sql-sync-state.js';
import { type LedgerInsights, SqlLedgerInsights } from './ledger-insights.js';
import type { LedgerPruning } from './ledger-pruning.js';
import { SqlPruning } from './sql-prune.js';
import type { LedgerNotices } from './ledger-notices.js';
import { SqlNotices } from './sql-notices.js';
import { recordCallSeconds, type CallSecond } from './sql-call-seconds.js';
import { storableJson } from './storable-json.js';
import { reopenResults, selectPending, selectPlannedByResult } from './result-query.js';
import { SqlRunResults } from './sql-run-results.js';
import { BatchResultWriter, type ResultWriter, type ResultWriterOptions } from './result-writer.js';
import { newRunId } from './run-id.js';
import { intentResults } from '../metrics/process-metrics.js';
import type { SqlClient } from './sql-client.js';

/** Rows per bulk statement: large enough to amortise a round trip, small enough for memory. */
const CHUNK = 1000;
/** The conference of state recorded before runs named theirs, and of the unscoped ledger. */
const NO_CONFERENCE = 0;
const UNIQUE_VIOLATION = '23505';

/** What the views of one ledger (`forConference`) share. */
interface SharedState {
  closed: boolean;
  /**
   * Runs known to exist, with their conference: runs are never deleted, so each id is
   * checked once (see migration 2); a run naming no conference is asked again, as a later
   * run of its job may adopt it.
   */
  knownRuns: Map<string, number>;
}

/** The one Ledger implementation; the adapters differ only in their `SqlClient`. */
export class SqlLedger implements Ledger {
  private readonly state: SqlSyncState;
  private readonly locks: SqlLocks;
  private readonly conferences: SqlConferences;
  private readonly runResults: SqlRunResults;

  constructor(
    private readonly db: SqlClient,
    readonly kind: 'embedded' | 'postgres',
    readonly description: string,
    readonly conference: ConferenceRecord | undefined = undefined,
    private readonly shared: SharedState = { closed: false, knownRuns: new Map() },
  ) {
    this.state = new SqlSyncState(() => this.sql(), this.conferenceId, kind);
    this.locks = new SqlLocks(() => this.sql(), this.conferenceId);
    this.conferences = new SqlConferences(() => this.sql());
    this.runResults = new SqlRunResults(
      () => this.sql(),
      (runIds) => this.requireRuns(runIds),
      kind,
    );
  }

  private get conferenceId(): number {
    return this.conference?.id ?? NO_CONFERENCE;
  }

  forConference(conference: ConferenceRecord): Ledger {
    return new SqlLedger(this.db, this.kind, this.description, conference, this.shared);
  }

  conferenceFor(baseUrl: string, keyId: number | null): Promise<ConferenceRecord> {
    return this.conferences.conferenceFor(baseUrl, keyId);
  }

  findConference(baseUrl: string): Promise<ConferenceRecord | undefined> {
    return this.conferences.findConference(baseUrl);
  }

  listConferences(): Promise<ConferenceRecord[]> {
    return this.conferences.listConferences();
  }

  adoptUnscopedState(jobName: string): Promise<AdoptedState> {
    if (this.conference === undefined)
      throw new Error('adoptUnscopedState needs a conference (forConference)');
    return this.conferences.adoptUnscopedState(jobName, this.conference.id);
  }

  ledgerId(): Promise<string> {
    return this.conferences.ledgerId();
  }

  async createRun(run: NewRun): Promise<RunRecord> {
    const params = (id: string): unknown[] => [
      id,
      run.jobName,
      run.mode,
      storableJson(run.options ?? {}),
      this.conference?.id ?? null,
    ];
    let created: RunRecord;
    try {
      created = toRunRecord(one(await this.sql().query<RunRow>(q.INSERT_RUN, params(newRunId()))));
    } catch (error) {
      // Two runs started in the same second drew the same 16-bit suffix: draw again, once.
      if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw error;
      created = toRunRecord(one(await this.sql().query<RunRow>(q.INSERT_RUN, params(newRunId()))));
    }
    if (created.conference) this.shared.knownRuns.set(created.id, created.conference.id);
    return created;
  }

  async finishRun(runId: string, status: RunStatus, counts?: ActionCounts): Promise<RunRecord> {
    const totals = counts ?? sumByAction(await this.resultCounts(runId));
    const rows = await this.sql().query<RunRow>(q.FINISH_RUN, [runId, status, JSON.stringify(totals)]);
    if (rows.length === 0) throw unknownRunError(runId);
    // What only a resume needed goes once nothing is left to resume (docs/ledger.md).
    if (status === 'completed') await this.runResults.dropSettledPlan(runId);
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

  claimRun(runId: string): Promise<() => Promise<void>> {
    return this.locks.claimRun(runId);
  }

  lockJob(jobName: string, options: LockJobOptions = {}): Promise<JobLock> {
    return this.locks.lockJob(jobName, options);
  }

  processGone(run: RunRecord): Promise<boolean> {
    return this.locks.processGone(run);
  }

  async listRuns(limit = 20, filter: RunListFilter = {}): Promise<RunRecord[]> {
    const rows = await this.sql().query<RunRow>(q.SELECT_RUNS, [
      Math.max(0, Math.floor(limit)),
      filter.conferenceId ?? null,
      filter.jobName ?? null,
      filter.statuses === undefined ? null : filter.statuses.join(','),
      filter.trigger ?? null,
      filter.since ?? null,
    ]);
    return rows.map(toRunRecord);
  }

  async runCounts(): Promise<Array<{ jobName: string; status: RunStatus; count: number }>> {
    const rows = await this.sql().query<{ job_name: string; status: string; n: Int8 }>(q.COUNT_RUNS_BY_JOB);
    return rows.map((row) => ({
      jobName: row.job_name,
      status: row.status as RunStatus,
      count: toNumber(row.n),
    }));
  }

  async jobRuns(): Promise<JobRuns[]> {
    const [last, successes] = await Promise.all([
      this.sql().query<RunRow>(q.SELECT_LAST_RUNS),
      this.sql().query<RunRow>(q.SELECT_LAST_SUCCESSES),
    ]);
    const success = new Map(successes.map((row) => [row.job_name, toRunRecord(row)]));
    return last.map((row) => ({
      jobName: row.job_name,
      last: toRunRecord(row),
      lastSuccess: success.get(row.job_name),
    }));
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
        aliases: intent.aliases ?? null,
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
    await this.runResults.record(results);
    countIntents(results.map((result) => [result.kind, result.action]));
  }

  async recordUnchanged(
    runId: string,
    items: ReadonlyArray<{ kind: IntentKind; key: string }>,
  ): Promise<void> {
    await this.runResults.recordUnchanged(runId, items);
    if (items.length > 0) countIntents(items.map((item) => [item.kind, 'unchanged']));
  }

  resultWriter(options?: ResultWriterOptions): ResultWriter {
    return new BatchResultWriter((results) => this.recordResults(results), options);
  }

  results(runId: string, filter?: ResultFilter): Promise<IntentResultRecord[]> {
    return this.runResults.results(runId, filter);
  }

  eachResult(
    runId: string,
    filter?: Omit<ResultFilter, 'afterSeq' | 'limit'>,
  ): AsyncIterable<IntentResultRecord> {
    return this.runResults.each(runId, filter);
  }

  resultCounts(runId: string, filter?: ResultCountFilter): Promise<RunResultCounts> {
    return this.runResults.counts(runId, filter);
  }

  recordCallSeconds(rows: readonly CallSecond[]): Promise<void> {
    return recordCallSeconds(this.sql(), rows);
  }

  insights(): LedgerInsights {
    return new SqlLedgerInsights(() => this.sql());
  }

  pruning(): LedgerPruning {
    return new SqlPruning(() => this.sql());
  }

  notices(): LedgerNotices {
    return new SqlNotices(() => this.sql());
  }

  getPlatformId(kind: IntentKind, clientId: string): Promise<number | undefined> {
    return this.state.getPlatformId(kind, clientId);
  }

  platformIdsOf(kind: IntentKind, clientIds: readonly string[]): Promise<Map<string, number>> {
    return this.state.platformIdsOf(kind, clientIds);
  }

  setPlatformIds(entries: readonly PlatformIdEntry[]): Promise<void> {
    return this.state.setPlatformIds(entries);
  }

  loadIdMap(kind: IntentKind): Promise<Map<string, number>> {
    return this.state.loadIdMap(kind);
  }

  idPages(kind: IntentKind): AsyncIterable<Array<[clientId: string, platformId: number]>> {
    return this.state.idPages(kind);
  }

  removePlatformIds(kind: IntentKind, clientIds: readonly string[]): Promise<void> {
    return this.state.removePlatformIds(kind, clientIds);
  }

  loadHashes(kind: IntentKind): Promise<Map<string, string>> {
    return this.state.loadHashes(kind);
  }

  hashesOf(kind: IntentKind, keys: readonly string[]): Promise<Map<string, string>> {
    return this.state.hashesOf(kind, keys);
  }

  hashTails(kind: IntentKind): AsyncIterable<Array<[key: string, tail: string]>> {
    return this.state.hashTails(kind);
  }

  syncedParamNames(kind: IntentKind, keys: readonly string[]): Promise<Map<string, string[]>> {
    return this.state.syncedParamNames(kind, keys);
  }

  syncedParams(kind: IntentKind, keys: readonly string[]): Promise<Map<string, FlatParams>> {
    return this.state.syncedParams(kind, keys);
  }

  setHashes(entries: readonly HashEntry[]): Promise<void> {
    return this.state.setHashes(entries);
  }

  removeHashes(kind: IntentKind, keys: readonly string[]): Promise<void> {
    return this.state.removeHashes(kind, keys);
  }

  async handledLater(runId: string): Promise<Set<string>> {
    const rows = await this.sql().query<{ kind: string; key: string }>(q.SELECT_HANDLED_LATER, [runId]);
    return new Set(rows.map((row) => `${row.kind}\u0000${row.key}`));
  }

  async outcomesOf(
    runId: string,
    kind: IntentKind,
    keys: readonly string[],
  ): Promise<Map<string, KeyOutcome>> {
    const found = new Map<string, KeyOutcome>();
    for (let start = 0; start < keys.length; start += CHUNK) {
      const rows = await this.sql().query<{
        key: string;
        action: KeyOutcome['action'];
        error_message: string | null;
      }>(q.SELECT_OUTCOMES_OF, [runId, kind, keys.slice(start, start + CHUNK)]);
      for (const row of rows) found.set(row.key, { action: row.action, errorMessage: row.error_message });
    }
    return found;
  }

  async countPending(
    runId: string,
  ): Promise<Array<{ kind: IntentKind; plannedAction: PlannedIntent['plannedAction']; count: number }>> {
    const rows = await this.sql().query<{
      kind: IntentKind;
      planned_action: PlannedIntent['plannedAction'];
      n: number | string;
    }>(q.COUNT_PENDING, [runId]);
    return rows.map((row) => ({ kind: row.kind, plannedAction: row.planned_action, count: toNumber(row.n) }));
  }

  async refreshPlanStatistics(): Promise<void> {
    // ANALYZE samples a fixed number of rows: about half a second on a ledger of 340,000.
    await this.sql()
      .query(q.ANALYZE_PLAN_TABLES)
      .catch(() => {});
  }

  async planSpan(runId: string): Promise<{ first: number; last: number } | undefined> {
    const rows = await this.sql().query<{ first: number | string | null; last: number | string | null }>(
      q.SELECT_PLAN_SPAN,
      [runId],
    );
    const span = rows[0];
    if (span?.first === null || span?.first === undefined || span.last === null) return undefined;
    return { first: toNumber(span.first), last: toNumber(span.last) };
  }

  async handledLaterOf(runId: string, kind: IntentKind, keys: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let start = 0; start < keys.length; start += CHUNK) {
      const rows = await this.sql().query<{ key: string }>(q.SELECT_HANDLED_LATER_OF, [
        runId,
        kind,
        keys.slice(start, start + CHUNK),
      ]);
      for (const row of rows) found.add(row.key);
    }
    return found;
  }

  lastRemovals(kind: IntentKind, keys: readonly string[]): Promise<Map<string, KeyRemoval>> {
    return this.state.lastRemovals(kind, keys);
  }

  knownKeys(kind: IntentKind, jobName: string): Promise<string[]> {
    return this.state.knownKeys(kind, jobName);
  }

  async close(): Promise<void> {
    if (this.shared.closed) return;
    this.shared.closed = true;
    await this.db.close();
  }

  /**
   * Refuses rows of a run the ledger does not have, before any of them is written; the
   * conference of each run otherwise: its results' hashes and ids are that conference's.
   */
  private async requireRuns(runIds: readonly string[]): Promise<Map<string, number>> {
    const known = this.shared.knownRuns;
    const unique = [...new Set(runIds)];
    const unseen = unique.filter((id) => !known.has(id));
    const conferences = new Map<string, number>();
    if (unseen.length > 0) {
      const found = await this.sql().query<{ id: string; conference_id: number | string }>(
        q.SELECT_RUN_CONFERENCES,
        [JSON.stringify(unseen)],
      );
      for (const { id, conference_id } of found) {
        const conference = toNumber(conference_id);
        conferences.set(id, conference);
        if (conference !== NO_CONFERENCE) known.set(id, conference);
      }
      const missing = unseen.find((id) => !conferences.has(id));
      if (missing !== undefined) throw unknownRunError(missing);
    }
    for (const id of unique) {
      const conference = known.get(id);
      if (conference !== undefined) conferences.set(id, conference);
    }
    return conferences;
  }

  private sql(): SqlClient {
    if (this.shared.closed) {
      throw new LedgerError(`The ledger (${this.description}) was closed; open it again with openLedger().`, {
        code: CODE.EVSYNC_LEDGER_CLOSED,
      });
    }
    return this.db;
  }
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

/** Adds recorded results to `evsync_intents_total`, one increment per kind and action. */
function countIntents(pairs: ReadonlyArray<readonly [kind: string, action: string]>): void {
  const counts = new Map<string, number>();
  for (const [kind, action] of pairs)
    counts.set(`${kind}\u0000${action}`, (counts.get(`${kind}\u0000${action}`) ?? 0) + 1);
  for (const [label, n] of counts) {
    const [kind, action] = label.split('\u0000');
    intentResults.inc({ kind, action }, n);
  }
}
