import type { FlatParams } from '../model/params.js';
import { CODE } from '../errors/codes.js';
import type { ConferenceRecord } from '../model/conference.js';
import type { IntentKind } from '../model/intent.js';
import type {
  AdoptedState,
  JobLock,
  JobRuns,
  KeyOutcome,
  HashTailPage,
  KeyRefusal,
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
  ResultCountFilter,
  ResultFilter,
  RunResultCounts,
} from '../model/result-records.js';
import type { NewRun, RunRecord, RunStatus } from '../model/run-record.js';
import { LedgerError } from './ledger-error.js';
import * as q from './ledger-sql.js';
import { SqlConferences } from './sql-conferences.js';
import { SqlLocks } from './sql-locks.js';
import { SqlSyncState } from './sql-sync-state.js';
import { type LedgerInsights, SqlLedgerInsights } from './ledger-insights.js';
import type { LedgerPruning } from './ledger-pruning.js';
import { SqlPruning } from './sql-prune.js';
import { SqlErasure } from './sql-erasure.js';
import type { LedgerErasure } from './ledger-erasure.js';
import type { LedgerNotices } from './ledger-notices.js';
import { SqlNotices } from './sql-notices.js';
import type { LedgerHolds } from './ledger-holds.js';
import { SqlHolds } from './sql-holds.js';
import { NO_CONFERENCE, requireRuns } from './known-runs.js';
import { recordCallSeconds, type CallSecond } from './sql-call-seconds.js';
import { SqlRunResults } from './sql-run-results.js';
import { SqlRuns } from './sql-runs.js';
import { SqlPlan } from './sql-plan.js';
import { BatchResultWriter, type ResultWriter, type ResultWriterOptions } from './result-writer.js';
import { countIntents } from './result-metrics.js';
import type { SqlClient } from './sql-client.js';

/** What the views of one ledger (`forConference`) share. */
interface SharedState {
  closed: boolean;
  /** A run was finished through this ledger: closing it checkpoints the embedded ledger. */
  finishedRun?: boolean;
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
  private readonly runs: SqlRuns;
  private readonly plan: SqlPlan;

  constructor(
    private readonly db: SqlClient,
    readonly kind: 'embedded' | 'postgres',
    readonly description: string,
    readonly conference: ConferenceRecord | undefined = undefined,
    private readonly shared: SharedState = { closed: false, knownRuns: new Map() },
  ) {
    this.state = new SqlSyncState(() => this.sql(), this.conferenceId);
    this.locks = new SqlLocks(() => this.sql(), this.conferenceId);
    this.conferences = new SqlConferences(() => this.sql());
    this.runResults = new SqlRunResults(
      () => this.sql(),
      (runIds) => this.requireRuns(runIds),
    );
    this.runs = new SqlRuns(() => this.sql(), conference, shared.knownRuns, this.runResults);
    this.plan = new SqlPlan(
      () => this.sql(),
      (runIds) => this.requireRuns(runIds),
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

  createRun(run: NewRun): Promise<RunRecord> {
    return this.runs.createRun(run);
  }

  async finishRun(
    runId: string,
    status: RunStatus,
    counts?: ActionCounts,
    lost?: number,
  ): Promise<RunRecord> {
    const finished = await this.runs.finishRun(runId, status, counts, lost);
    this.shared.finishedRun = true;
    return finished;
  }

  setRunStatus(runId: string, status: RunStatus): Promise<void> {
    return this.runs.setRunStatus(runId, status);
  }

  mergeRunOptions(runId: string, options: Record<string, unknown>): Promise<void> {
    return this.runs.mergeRunOptions(runId, options);
  }

  getRun(runId: string): Promise<RunRecord | undefined> {
    return this.runs.getRun(runId);
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

  async lastResultAt(runId: string): Promise<Date | undefined> {
    const [row] = await this.sql().query<{ at: Date | string | null }>(q.LAST_RESULT_AT, [runId]);
    return row?.at == null ? undefined : new Date(row.at);
  }

  listRuns(limit = 20, filter: RunListFilter = {}): Promise<RunRecord[]> {
    return this.runs.listRuns(limit, filter);
  }

  runCounts(): Promise<Array<{ jobName: string; status: RunStatus; count: number }>> {
    return this.runs.runCounts();
  }

  jobRuns(): Promise<JobRuns[]> {
    return this.runs.jobRuns();
  }

  recordPlannedIntents(runId: string, intents: readonly PlannedIntent[]): Promise<void> {
    return this.plan.recordPlannedIntents(runId, intents);
  }

  countPlanned(runId: string): Promise<number> {
    return this.plan.countPlanned(runId);
  }

  pendingIntents(runId: string, filter?: PendingFilter): Promise<PlannedIntentRecord[]> {
    return this.plan.pendingIntents(runId, filter);
  }

  markSendStarted(runId: string, intents: ReadonlyArray<{ kind: IntentKind; key: string }>): Promise<void> {
    return this.plan.markSendStarted(runId, intents);
  }

  unmarkSendStarted(runId: string, intent: { kind: IntentKind; key: string }): Promise<void> {
    return this.plan.unmarkSendStarted(runId, intent);
  }

  reopenIntents(runId: string, filter: ResultFilter): Promise<number> {
    return this.plan.reopenIntents(runId, filter);
  }

  plannedByResult(runId: string, filter: ResultFilter): Promise<PlannedIntentRecord[]> {
    return this.plan.plannedByResult(runId, filter);
  }

  async recordResults(results: readonly IntentResultInput[]): Promise<void> {
    await this.runResults.record(results);
    countIntents(results, (result) => result.action);
  }

  async recordUnchanged(
    runId: string,
    items: ReadonlyArray<{ kind: IntentKind; key: string }>,
  ): Promise<void> {
    await this.runResults.recordUnchanged(runId, items);
    countIntents(items, () => 'unchanged');
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
    return new SqlNotices(() => this.sql(), this.conferenceId);
  }

  erasure(): LedgerErasure {
    return new SqlErasure(() => this.sql());
  }

  holds(): LedgerHolds {
    return new SqlHolds(() => this.sql(), this.conferenceId);
  }

  getPlatformId(kind: IntentKind, clientId: string): Promise<number | undefined> {
    return this.state.getPlatformId(kind, clientId);
  }

  platformIdsOf(kind: IntentKind, clientIds: readonly string[]): Promise<Map<string, number>> {
    return this.state.platformIdsOf(kind, clientIds);
  }

  keysSharingIds(kind: IntentKind): Promise<string[][]> {
    return this.state.keysSharingIds(kind);
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

  hashTails(kind: IntentKind): AsyncIterable<HashTailPage> {
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

  staleHashes(kind: IntentKind, keys: readonly string[]): Promise<void> {
    return this.state.staleHashes(kind, keys);
  }

  handledLater(runId: string): Promise<Set<string>> {
    return this.plan.handledLater(runId);
  }

  outcomesOf(runId: string, kind: IntentKind, keys: readonly string[]): Promise<Map<string, KeyOutcome>> {
    return this.plan.outcomesOf(runId, kind, keys);
  }

  countPending(
    runId: string,
  ): Promise<Array<{ kind: IntentKind; plannedAction: PlannedIntent['plannedAction']; count: number }>> {
    return this.plan.countPending(runId);
  }

  refreshPlanStatistics(): Promise<void> {
    return this.plan.refreshPlanStatistics();
  }

  planSpan(runId: string): Promise<{ first: number; last: number } | undefined> {
    return this.plan.planSpan(runId);
  }

  handledLaterOf(runId: string, kind: IntentKind, keys: readonly string[]): Promise<Set<string>> {
    return this.plan.handledLaterOf(runId, kind, keys);
  }

  lastRemovals(kind: IntentKind, keys: readonly string[]): Promise<Map<string, KeyRemoval>> {
    return this.state.lastRemovals(kind, keys);
  }

  lastRefusals(kind: IntentKind, keys: readonly string[]): Promise<Map<string, KeyRefusal>> {
    return this.state.lastRefusals(kind, keys);
  }

  accountsLastSent(kind: IntentKind, keys: readonly string[]): Promise<Map<string, FlatParams>> {
    return this.state.accountsLastSent(kind, keys);
  }

  removedKeysLastSent(kind: IntentKind, keys: readonly string[]): Promise<Map<string, FlatParams>> {
    return this.state.removedKeysLastSent(kind, keys);
  }

  deletedAccountsLastSent(kind: IntentKind, keys: readonly string[]): Promise<Map<string, FlatParams>> {
    return this.state.deletedAccountsLastSent(kind, keys);
  }

  knownKeys(kind: IntentKind, jobName: string): Promise<string[]> {
    return this.state.knownKeys(kind, jobName);
  }

  async close(): Promise<void> {
    if (this.shared.closed) return;
    this.shared.closed = true;
    // The embedded ledger's WAL is part of the folder the user backs up: a checkpoint once a
    // run is done leaves `min_wal_size` of it (2 MB) instead of up to `max_wal_size` (32 MB)
    // until the server's idle stop. At close, after the run's locks are let go: no one
    // waiting for the job waits for it too. A failure here costs only that.
    if (this.kind === 'embedded' && this.shared.finishedRun === true)
      await this.db.query('CHECKPOINT').catch(() => undefined);
    await this.db.close();
  }

  private requireRuns(runIds: readonly string[]): Promise<Map<string, number>> {
    return requireRuns(this.sql(), this.shared.knownRuns, runIds);
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
