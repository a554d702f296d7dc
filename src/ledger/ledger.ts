import type { IntentDependency, IntentKind } from '../mapping/intent.js';
import type { FlatParams } from '../platform/params.js';
import type { RowOrigin } from '../sources/source-row.js';

/**
 * The ledger is the durable truth of evsync (DESIGN "Ledger"): runs, the planned work of
 * each run, one final result per intent, the id map and the last-synced hashes. Two
 * adapters implement it with one SQL dialect: embedded PGlite and PostgreSQL
 * (`openLedger` in `open-ledger.ts` picks one). Nothing above this interface talks SQL.
 */

export const RUN_STATUSES = ['running', 'completed', 'failed', 'interrupted', 'aborted'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const RUN_MODES = ['upsert', 'mirror'] as const;
export type RunMode = (typeof RUN_MODES)[number];

/** The final outcome of one intent. */
export const RESULT_ACTIONS = [
  'created',
  'attached',
  'updated',
  'unchanged',
  'deleted',
  'retired',
  'skipped',
  'failed',
] as const;
export type ResultAction = (typeof RESULT_ACTIONS)[number];

/** Outcomes after which the platform holds what the source said: hashes and ids are kept. */
export const SUCCESS_ACTIONS = [
  'created',
  'attached',
  'updated',
  'unchanged',
] as const satisfies readonly ResultAction[];

/**
 * What the plan decided for an intent before anything was sent. `retire`: a mirror delete
 * of a key whose platform record a key still in the source maps to; the ledger forgets the
 * key, and nothing is sent (docs/sync-engine.md).
 */
export const PLANNED_ACTIONS = ['create', 'update', 'delete', 'retire', 'unchanged'] as const;
export type PlannedAction = (typeof PLANNED_ACTIONS)[number];

export type ActionCounts = Partial<Record<ResultAction, number>>;

export interface NewRun {
  jobName: string;
  mode: RunMode;
  /** Job options worth showing later (rate, threshold, flags). Never credentials. */
  options?: Record<string, unknown>;
}

export interface RunRecord {
  /** Sortable and readable, e.g. `20261122-014512-7f3a`. */
  id: string;
  jobName: string;
  mode: RunMode;
  status: RunStatus;
  startedAt: Date;
  finishedAt: Date | null;
  /** Counts per action as recorded by `finishRun` (empty while running). */
  counts: ActionCounts;
  options: Record<string, unknown>;
}

/** One intent of a run's plan, stored before any call so `resume` survives a `kill -9`. */
export interface PlannedIntent {
  kind: IntentKind;
  key: string;
  op: 'upsert' | 'remove';
  plannedAction: PlannedAction;
  /**
   * Write params. Stored REDACTED (secrets never enter the ledger): values of secret
   * names come back as `[redacted]`, listed in `PlannedIntentRecord.redactedParams`.
   */
  params: FlatParams;
  origin: RowOrigin | null;
  dependsOn: IntentDependency[];
  /** Hash of the full (unredacted) params, written to `synced_hashes` after a success. */
  hash: string;
}

export interface PlannedIntentRecord extends PlannedIntent {
  runId: string;
  /** Insertion order within the ledger: stable paging cursor. */
  seq: number;
  /** Param names whose values were redacted on store: a resume must re-derive or drop them. */
  redactedParams: string[];
  /** When a call that must not be repeated started (see `Ledger.markSendStarted`), else null. */
  sendStartedAt: Date | null;
}

/** What the engine reports when an intent reaches its final outcome. */
export interface IntentResultInput {
  runId: string;
  kind: IntentKind;
  key: string;
  action: ResultAction;
  origin?: RowOrigin | null;
  platformId?: number | null;
  httpStatus?: number | null;
  errorCode?: string | null;
  errorMessage?: string | null;
  /** @defaultValue 1 */
  attempts?: number;
  /** @defaultValue 0 */
  durationMs?: number;
  /** Redacted by the ledger before storing. */
  params?: FlatParams;
  /**
   * Hash of the params now on the platform. On a success action it becomes the last-synced
   * hash of `(kind, key)`, in the same transaction as the result. Ignored otherwise.
   */
  hash?: string | null;
}

/**
 * Side effects of recording a result, in the same transaction:
 * - success (`SUCCESS_ACTIONS`): `hash` → synced_hashes, `platformId` → id_map;
 * - `deleted`, `retired`: the hash and the id of `(kind, key)` are removed;
 * - `failed` / `skipped`: nothing else changes, so the row is sent again next run.
 */
export interface IntentResultRecord {
  runId: string;
  seq: number;
  kind: IntentKind;
  key: string;
  action: ResultAction;
  origin: RowOrigin | null;
  platformId: number | null;
  httpStatus: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  attempts: number;
  durationMs: number;
  params: FlatParams;
  recordedAt: Date;
}

export interface ResultFilter {
  actions?: readonly ResultAction[];
  /** Results with one of these error codes (`EVSYNC_PLATFORM_UNREACHABLE`…). */
  errorCodes?: readonly string[];
  kinds?: readonly IntentKind[];
  /** Results recorded at or after this time. */
  since?: Date;
  keys?: readonly string[];
  /** Only results with `seq` greater than this (keyset paging). */
  afterSeq?: number;
  limit?: number;
}

export interface PendingFilter {
  kinds?: readonly IntentKind[];
  /** Only those marked as being sent (`Ledger.markSendStarted`). */
  sendStarted?: boolean;
  afterSeq?: number;
  limit?: number;
}

export interface PlatformIdEntry {
  kind: IntentKind;
  clientId: string;
  platformId: number;
}

export interface HashEntry {
  kind: IntentKind;
  key: string;
  hash: string;
  runId: string;
}

/** Counts of final results of a run, per kind and action. */
export type RunResultCounts = Partial<Record<IntentKind, ActionCounts>>;

export interface ResultWriterOptions {
  /** Rows per multi-row INSERT. @defaultValue 1000 */
  batchSize?: number;
  /** A partial batch is flushed after this long. @defaultValue 250 */
  flushIntervalMs?: number;
  /** Waits before each new attempt of a failed batch; then the writer fails. @defaultValue [200, 1000] */
  retryDelaysMs?: readonly number[];
}

/**
 * Buffers results and writes them in batches. `write` is cheap: it only waits when the
 * buffer is full. A failed background flush is rethrown by the next `write`, `flush` or
 * `close`. Results still buffered at a `kill -9` are lost; `resume` re-sends those intents,
 * which is safe because processors are idempotent.
 */
export interface ResultWriter {
  write(result: IntentResultInput): Promise<void>;
  flush(): Promise<void>;
  /** Flushes and stops the timer; writing after close throws. */
  close(): Promise<void>;
  /** Results buffered and not yet written. */
  readonly buffered: number;
  /** Results written to the ledger so far. */
  readonly written: number;
}

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
