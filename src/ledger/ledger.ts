import type { IntentKind } from '../model/intent.js';
import type { PendingFilter, PlannedIntent, PlannedIntentRecord } from '../model/planned-intent.js';
import type {
  ActionCounts,
  IntentResultInput,
  IntentResultRecord,
  ResultFilter,
  RunResultCounts,
} from '../model/result-records.js';
import type { NewRun, RunRecord, RunStatus } from '../model/run-record.js';
import type { HashEntry, PlatformIdEntry } from '../model/sync-state.js';
import type { ResultWriter, ResultWriterOptions } from './result-writer.js';

/**
 * The ledger is the durable truth of evsync (DESIGN "Ledger"): runs, the planned work of
 * each run, one final result per intent, the id map and the last-synced hashes. Two
 * adapters implement it with one SQL dialect: embedded PGlite and PostgreSQL
 * (`openLedger` in `open-ledger.ts` picks one). Nothing above this interface talks SQL.
 */

export interface Ledger {
  /** `embedded` (PGlite) or `postgres`. */
  readonly kind: 'embedded' | 'postgres';
  /** Where it lives, without credentials (a folder, or host/database). */
  readonly description: string;

  createRun(run: NewRun): Promise<RunRecord>;
  /** Terminal status. Without `counts`, they are computed from the run's results. */
  finishRun(runId: string, status: RunStatus, counts?: ActionCounts): Promise<RunRecord>;
  /** Non-terminal change, e.g. `resume` sets `running` again (clears `finishedAt`). */
  setRunStatus(runId: string, status: RunStatus): Promise<void>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  /**
   * Claims a run for this process while it runs, resumes or retries it: every evsync
   * sharing the ledger sees the claim, and a process that dies drops it. Throws
   * `EVSYNC_RUN_BUSY` when another holds it. Resolves to the release.
   */
  claimRun(runId: string): Promise<() => Promise<void>>;
  /** Newest first. @defaultValue limit 20 */
  listRuns(limit?: number): Promise<RunRecord[]>;

  /** Batched. Re-recording the same `(kind, key)` of a run replaces it. */
  recordPlannedIntents(runId: string, intents: readonly PlannedIntent[]): Promise<void>;
  /** How many intents of the run's plan are recorded. */
  countPlanned(runId: string): Promise<number>;
  /** Planned intents of the run without a final result, in plan order. */
  pendingIntents(runId: string, filter?: PendingFilter): Promise<PlannedIntentRecord[]>;
  /**
   * Notes, durably and before the call, that these planned intents are being sent. For
   * calls that cannot be repeated or looked up (check-ins): if the process dies before
   * their results are written, `resume` sees the mark and does not send them twice.
   */
  markSendStarted(runId: string, intents: ReadonlyArray<{ kind: IntentKind; key: string }>): Promise<void>;
  /**
   * Makes planned intents whose final result matches the filter pending again: deletes
   * those results and the intents' send marks, in one statement, so a `resume` (even one
   * killed and resumed again) sends them as if they had never been tried. Returns how many.
   */
  reopenIntents(runId: string, filter: ResultFilter): Promise<number>;
  /**
   * Planned intents whose final result matches the filter, in plan order: the `failed`
   * ones for `evsync retry`, those a stopped run must send again for `resume`.
   */
  plannedByResult(runId: string, filter: ResultFilter): Promise<PlannedIntentRecord[]>;

  /** Batched, one transaction; last one wins per `(run, kind, key)`. See `IntentResultInput.hash`. */
  recordResults(results: readonly IntentResultInput[]): Promise<void>;
  resultWriter(options?: ResultWriterOptions): ResultWriter;
  /** In `seq` order. */
  results(runId: string, filter?: ResultFilter): Promise<IntentResultRecord[]>;
  /** Every matching result, paged internally (bounded memory for big reports). */
  eachResult(
    runId: string,
    filter?: Omit<ResultFilter, 'afterSeq' | 'limit'>,
  ): AsyncIterable<IntentResultRecord>;
  resultCounts(runId: string): Promise<RunResultCounts>;

  getPlatformId(kind: IntentKind, clientId: string): Promise<number | undefined>;
  setPlatformIds(entries: readonly PlatformIdEntry[]): Promise<void>;
  loadIdMap(kind: IntentKind): Promise<Map<string, number>>;
  removePlatformIds(kind: IntentKind, clientIds: readonly string[]): Promise<void>;

  /** Last-synced hash per key. */
  loadHashes(kind: IntentKind): Promise<Map<string, string>>;
  /**
   * The names of the params (non-empty) that were last synced for each of these keys: the
   * planned params of the run whose result wrote the key's synced hash. A name synced
   * before and absent now is a field the source cleared (docs/sync-engine.md, "Cleared
   * fields"). Names only: values, secrets among them, are not read.
   */
  syncedParamNames(kind: IntentKind, keys: readonly string[]): Promise<Map<string, string[]>>;
  /**
   * `kind` + `\u0000` + `key` of every key that a run of the same job, started after this
   * one, ended with a success or a delete (a retry only when the run it retries started
   * after this one too): the source as read later, which a resume or a retry of this run
   * must not overwrite with older content.
   */
  handledLater(runId: string): Promise<Set<string>>;
  setHashes(entries: readonly HashEntry[]): Promise<void>;
  removeHashes(kind: IntentKind, keys: readonly string[]): Promise<void>;
  /**
   * Keys of a kind whose last-synced content a run of this job wrote: the job's mirror-mode
   * delete candidates. What another job synced is never this job's to delete.
   */
  knownKeys(kind: IntentKind, jobName: string): Promise<string[]>;

  close(): Promise<void>;
}
