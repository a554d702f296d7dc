import type { LedgerErasure } from './ledger-erasure.js';
import type { FlatParams } from '../model/params.js';
import type { ConferenceRecord } from '../model/conference.js';
import type { IntentKind } from '../model/intent.js';
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
import type { HashEntry, PlatformIdEntry } from '../model/sync-state.js';
import type { LedgerInsights } from './ledger-insights.js';
import type { LedgerNotices } from './ledger-notices.js';
import type { CallSecond } from './sql-call-seconds.js';
import type { LedgerPruning } from './ledger-pruning.js';
import type { ResultWriter, ResultWriterOptions } from './result-writer.js';
import type { LedgerHolds } from './ledger-holds.js';

/**
 * The ledger is the durable truth of evsync (docs/design.md, "The flow of one run"): runs, the planned work of
 * each run, one final result per intent, the id map and the last-synced hashes. Two
 * adapters implement it with one SQL dialect: embedded PGlite and PostgreSQL
 * (`openLedger` in `open-ledger.ts` picks one). Nothing above this interface talks SQL.
 */

export interface LockJobOptions {
  /** Wait for a held lock instead of failing; called once with who holds it, in words. */
  wait?: (holder: string) => void;
  /** Gives up a wait: `EVSYNC_JOB_BUSY`, nothing run. */
  signal?: AbortSignal;
}

/** A job's lock, held until released (see `Ledger.lockJob`). */
export interface JobLock {
  readonly jobName: string;
  /** Notes the run the holder works on, so that a process kept out is told which. */
  holding(runId: string): Promise<void>;
  release(): Promise<void>;
}

/** What `adoptUnscopedState` took, and what no job has taken yet. */
export interface AdoptedState {
  runs: number;
  hashes: number;
  ids: number;
  /** Conference-0 state left for other jobs (or for none: what no run recorded). */
  left: { hashes: number; ids: number; jobs: number };
}

export interface Ledger {
  /** `embedded` (PGlite) or `postgres`. */
  readonly kind: 'embedded' | 'postgres';
  /** Where it lives, without credentials (a folder, or host/database). */
  readonly description: string;
  /**
   * The conference whose sync state this ledger reads and writes (id map, synced hashes,
   * known keys, job locks), and that the runs it creates name: see `forConference`.
   * Undefined for the ledger as a whole, whose state methods read and write conference 0:
   * state recorded before runs named their conference (migration 8).
   */
  readonly conference: ConferenceRecord | undefined;

  /** The conference of a normalised base URL, created on first use; `keyId` is kept as its attribute. */
  conferenceFor(baseUrl: string, keyId: number | null): Promise<ConferenceRecord>;
  /** The conference of a normalised base URL, if the ledger knows it. */
  findConference(baseUrl: string): Promise<ConferenceRecord | undefined>;
  /** Every conference the ledger knows, most recently used first. */
  listConferences(): Promise<ConferenceRecord[]>;
  /**
   * This ledger seen from one conference: its sync state and its job locks are that
   * conference's, and the runs it creates name it. Same connection: closing one closes both.
   */
  forConference(conference: ConferenceRecord): Ledger;
  /**
   * Takes for this ledger's conference the job's state recorded before runs named their
   * conference (docs/ledger.md, "Conferences"): its runs, their synced hashes, and the id
   * map entries its runs recorded, where the conference does not have the key already.
   */
  adoptUnscopedState(jobName: string): Promise<AdoptedState>;
  /** The ledger's own id, written when it was created: tells one ledger from another. */
  ledgerId(): Promise<string>;

  createRun(run: NewRun): Promise<RunRecord>;
  /**
   * Terminal status. Without `counts`, they are computed from the run's results. A run
   * `completed` loses the planned intents that ended in a success: only a resume needed them.
   * `lost`: its results that are rows lost for want of data (`RunRecord.lost`).
   */
  finishRun(runId: string, status: RunStatus, counts?: ActionCounts, lost?: number): Promise<RunRecord>;
  /** Non-terminal change, e.g. `resume` sets `running` again (clears `finishedAt`). */
  setRunStatus(runId: string, status: RunStatus): Promise<void>;
  /** Adds to (or replaces keys of) a run's options: what a streamed plan learns at its end. */
  mergeRunOptions(runId: string, options: Record<string, unknown>): Promise<void>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  /**
   * Claims a run for this process while it runs, resumes or retries it: every evsync
   * sharing the ledger sees the claim, and a process that dies drops it. Throws
   * `EVSYNC_RUN_BUSY` when another holds it. Resolves to the release.
   */
  claimRun(runId: string): Promise<() => Promise<void>>;
  /**
   * Takes the job's lock: while it is held, no other run, resume or retry of the job goes
   * ahead in any process sharing this ledger, on any machine. PostgreSQL: a session
   * advisory lock on a connection of its own, so a process that dies (`kill -9`) lets go
   * of it with its connection; embedded: the folder lock keeps other processes out, and
   * this process's holders are kept in memory. Without `wait`, a held lock throws
   * `EVSYNC_JOB_BUSY` naming the holder; with it, `wait` is told who holds it, once, and
   * the call returns when the holder lets go.
   */
  lockJob(jobName: string, options?: LockJobOptions): Promise<JobLock>;
  /** Newest first (by `seq`), of every conference or of one. @defaultValue limit 20 */
  listRuns(limit?: number, filter?: RunListFilter): Promise<RunRecord[]>;
  /**
   * Every job that has a run, by name: its newest run that started (a scheduled run
   * `skipped` for a busy job did not) and its newest success (completed, no failed row).
   */
  /** Per job and conference. */
  jobRuns(): Promise<JobRuns[]>;
  /** How many runs each job has per status: what `/metrics` exports. */
  runCounts(): Promise<Array<{ jobName: string; status: RunStatus; count: number }>>;
  /**
   * Whether a `running` run's process is gone: no process holds the run's claim, nor its
   * job's lock for it (a process that dies lets go of both; a later run of the job may hold
   * the job's lock), so nothing carries it on and only `evsync resume` finishes it. Neither
   * lock is taken to find out.
   */
  processGone(run: RunRecord): Promise<boolean>;
  /**
   * When the run last recorded a result (a row's, or a chunk of unchanged keys): how far a
   * run cut off got, its process gone and no end written. Undefined when it recorded none.
   */
  lastResultAt(runId: string): Promise<Date | undefined>;

  /** Batched. Re-recording the same `(kind, key)` of a run replaces it. */
  recordPlannedIntents(runId: string, intents: readonly PlannedIntent[]): Promise<void>;
  /** How many intents of the run's plan are recorded. */
  countPlanned(runId: string): Promise<number>;
  /** How many planned intents of the run have no final result, per kind and planned action. */
  countPending(
    runId: string,
  ): Promise<Array<{ kind: IntentKind; plannedAction: PlannedIntent['plannedAction']; count: number }>>;
  /**
   * Brings the statistics of the plan and result tables up to date before a resume reads a
   * run's plan: statistics from before the run (a ledger's history, or a ledger too young for
   * autovacuum to have looked again) had the planner take the run's results for a handful
   * of rows and scan them all for each intent. Best effort: a ledger user that may not
   * ANALYZE leaves them as they are.
   */
  refreshPlanStatistics(): Promise<void>;
  /** The first and last `seq` of the run's recorded plan; undefined when nothing is recorded. */
  planSpan(runId: string): Promise<{ first: number; last: number } | undefined>;
  /** Planned intents of the run without a final result, in plan order. */
  pendingIntents(runId: string, filter?: PendingFilter): Promise<PlannedIntentRecord[]>;
  /**
   * Notes, durably and before the call, that these planned intents are being sent. For
   * calls that cannot be repeated or looked up (check-ins): if the process dies before
   * their results are written, `resume` sees the mark and does not send them twice.
   */
  markSendStarted(runId: string, intents: ReadonlyArray<{ kind: IntentKind; key: string }>): Promise<void>;
  /**
   * Takes back the send mark of a planned intent whose call the platform refused before
   * doing anything (a 401 to a worker with a wrong key), so that another worker sends it.
   */
  unmarkSendStarted(runId: string, intent: { kind: IntentKind; key: string }): Promise<void>;
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
  /**
   * Records rows whose content was synced already, compactly: their keys per kind, no
   * result row each (docs/ledger.md, "What a run stores"). Reads (`results`, `eachResult`,
   * `resultCounts`, a key's history) give them back as `unchanged` results.
   */
  recordUnchanged(runId: string, items: ReadonlyArray<{ kind: IntentKind; key: string }>): Promise<void>;
  /** In `seq` order. */
  results(runId: string, filter?: ResultFilter): Promise<IntentResultRecord[]>;
  /** Every matching result, paged internally (bounded memory for big reports). */
  eachResult(
    runId: string,
    filter?: Omit<ResultFilter, 'afterSeq' | 'limit'>,
  ): AsyncIterable<IntentResultRecord>;
  /**
   * The run's outcome of each of these keys (of one kind) that has a result: one index probe
   * per key, what a resume asks per page about the parents its dependents name.
   */
  outcomesOf(runId: string, kind: IntentKind, keys: readonly string[]): Promise<Map<string, KeyOutcome>>;
  /** The run's results per kind and action, all of them or those of the filter. */
  resultCounts(runId: string, filter?: ResultCountFilter): Promise<RunResultCounts>;
  /**
   * Adds to a run's platform calls per second and outcome (and its pause, stop and resume
   * marks): what the run page's chart of calls shows (`insights().timeline`).
   */
  recordCallSeconds(rows: readonly CallSecond[]): Promise<void>;
  /** Searches, groups and histories for a person browsing the ledger (the dashboard). */
  insights(): LedgerInsights;
  /** Retention: old runs' per-row data removed, the synced state kept (docs/ledger.md, "Retention"). */
  pruning(): LedgerPruning;
  /** What notifications keep: each job's state told, each message's delivery (docs/notifications.md). */
  notices(): LedgerNotices;
  /** Erasure: tombstones, and a person's traces replaced (docs/privacy.md). */
  erasure(): LedgerErasure;
  /** Keys whose dependents no job sends while their person is in question (docs/sync-engine.md, "Who is who"). */
  holds(): LedgerHolds;

  getPlatformId(kind: IntentKind, clientId: string): Promise<number | undefined>;
  /** The ids of these keys that the id map has: a run's id cache asks chunk by chunk. */
  platformIdsOf(kind: IntentKind, clientIds: readonly string[]): Promise<Map<string, number>>;
  /**
   * The client_ids the id map gives one platform id, a list per id that several name: a
   * person merged from rows of several steps (docs/sync-engine.md, "One person, many sources").
   */
  keysSharingIds(kind: IntentKind): Promise<string[][]>;
  setPlatformIds(entries: readonly PlatformIdEntry[]): Promise<void>;
  loadIdMap(kind: IntentKind): Promise<Map<string, number>>;
  /**
   * The id map of a kind page by page in client_id order: what a run's id cache loads
   * without holding the whole result of one statement (sync/processors/id-cache.ts).
   */
  idPages(kind: IntentKind): AsyncIterable<Array<[clientId: string, platformId: number]>>;
  removePlatformIds(kind: IntentKind, clientIds: readonly string[]): Promise<void>;

  /** Last-synced hash per key. */
  loadHashes(kind: IntentKind): Promise<Map<string, string>>;
  /**
   * Every key of a kind with the last 16 characters of its synced hash, page by page in key
   * order: what a streamed plan reads once to tell unchanged rows without a look-up each.
   */
  hashTails(kind: IntentKind): AsyncIterable<HashTailPage>;
  /** Last-synced hashes of these keys only (those that have one): a streamed plan asks chunk by chunk. */
  hashesOf(kind: IntentKind, keys: readonly string[]): Promise<Map<string, string>>;
  /**
   * The names of the params (non-empty) that were last synced for each of these keys: the
   * planned params of the run whose result wrote the key's synced hash. A name synced
   * before and absent now is a field the source cleared (docs/sync-engine.md, "Cleared
   * fields"). Names only: values, secrets among them, are not read.
   */
  syncedParamNames(kind: IntentKind, keys: readonly string[]): Promise<Map<string, string[]>>;
  /**
   * The params each of these keys was last synced with, as stored (redacted: a secret never
   * comes back): what a mirror delete preview names a key by (docs/sync-engine.md, "Rows are
   * found by the person"). Keys never synced are absent.
   */
  syncedParams(kind: IntentKind, keys: readonly string[]): Promise<Map<string, FlatParams>>;
  /**
   * For keys a run removed from the synced state (a mirror delete, a retire: no synced hash
   * now), the params each was last sent with in this conference: its newest created,
   * attached or updated result, as stored (redacted), while retention keeps it. The platform
   * keeps a client_id on the account it first made for it, so a create under such a key
   * reaches that person's account (203): the identity checks compare the row with this
   * (docs/sync-engine.md, "Who is who"). Keys with a synced hash, or never sent, are absent.
   */
  removedKeysLastSent(kind: IntentKind, keys: readonly string[]): Promise<Map<string, FlatParams>>;
  /**
   * For these keys that the id map has, when a run deleted their platform user under another
   * of its keys and none of its keys is synced now (a merged person's other client_ids, which
   * keep their id-map rows), the params last sent under either key, as stored (redacted): the
   * person whose account a row reusing the key would reach (its PUT answers 404, its create
   * 203). Other keys are absent.
   */
  deletedAccountsLastSent(kind: IntentKind, keys: readonly string[]): Promise<Map<string, FlatParams>>;
  /**
   * For these keys that the id map has, the params last synced to the platform user under
   * any of its client_ids (the newest change), as stored (redacted), if any: what was last
   * sent to the key's account. A merged person is sent under one key; another key of theirs
   * has nothing synced of its own, or a record older than the merge (docs/sync-engine.md,
   * "Who is who").
   */
  accountsLastSent(kind: IntentKind, keys: readonly string[]): Promise<Map<string, FlatParams>>;
  /**
   * `kind` + `\u0000` + `key` of every key that a run of the same job, created after this
   * one (by `seq`), ended with a success or a delete (a retry only when the run it retries
   * was created after this one too): the source as read later, which a resume or a retry of this run
   * must not overwrite with older content.
   */
  handledLater(runId: string): Promise<Set<string>>;
  /**
   * Those of `keys` (of one kind) that `handledLater` would list: what a resume or a retry
   * asks page by page, so that it never holds every key the later runs handled.
   */
  handledLaterOf(runId: string, kind: IntentKind, keys: readonly string[]): Promise<Set<string>>;
  /**
   * The newest delete or retire of each of these keys in this conference's runs: what a
   * dependent naming a key the id map no longer has says about it ("deleted by run R on D"),
   * instead of calling it unknown (docs/sync-engine.md, "Phases").
   */
  lastRemovals(kind: IntentKind, keys: readonly string[]): Promise<Map<string, KeyRemoval>>;
  /**
   * Those of these keys whose newest result that sent them is a 422 refusal by the platform
   * (no run synced them since): a schedule's pick of such an event is lost, as one whose row
   * failed (docs/sync-engine.md, "Phases").
   */
  lastRefusals(kind: IntentKind, keys: readonly string[]): Promise<Map<string, KeyRefusal>>;
  setHashes(entries: readonly HashEntry[]): Promise<void>;
  removeHashes(kind: IntentKind, keys: readonly string[]): Promise<void>;
  /**
   * Makes each of these keys' synced hash match no row, so that the next plan sends the key
   * again, while `syncedParams` still reads what was last sent for it: unlike
   * `removeHashes`, the identity checks that compare a row with its key's last-synced person
   * (`refuseKeyOfAnother`) still see it (docs/audit.md, "Repair").
   */
  staleHashes(kind: IntentKind, keys: readonly string[]): Promise<void>;
  /**
   * Keys of a kind whose last-synced content a run of this job wrote: the job's mirror-mode
   * delete candidates. What another job synced is never this job's to delete.
   */
  knownKeys(kind: IntentKind, jobName: string): Promise<string[]>;

  close(): Promise<void>;
}

/** Which runs `listRuns` gives; each field absent for any. */
export interface RunListFilter {
  conferenceId?: number;
  jobName?: string;
  /** Any of these. */
  statuses?: readonly RunStatus[];
  /** `manual`, `schedule` or `audit` (a run recorded without one was `manual`). */
  trigger?: string;
  /** Started at or after. */
  since?: Date;
}

/** A job's newest run, newest completed run and newest success in one conference: `Ledger.jobRuns`. */
export interface JobRuns {
  jobName: string;
  /** The conference of its runs, null for runs that name none (recorded before migration 8). */
  conferenceId: number | null;
  last: RunRecord;
  /** Ran to its end, with rows failed or lost or not: what a schedule being on time needs. */
  lastCompleted: RunRecord | undefined;
  /** Completed with no row failed or lost. */
  lastSuccess: RunRecord | undefined;
}

/** A key's final result in a run, in brief: `Ledger.outcomesOf`. */
export interface KeyOutcome {
  action: IntentResultRecord['action'];
  errorMessage: string | null;
}

/**
 * A page of `Ledger.hashTails`: keys in key order, and their tails in one string, 16
 * characters a key (`tails.slice(16 * i, 16 * i + 16)` is `keys[i]`'s). A tail that is not
 * 16 lower-case hex digits (a hash erased by migration 4) is 16 dashes, and matches nothing.
 */
export interface HashTailPage {
  keys: string[];
  tails: string;
}

/** The run that last deleted (mirror mode) or retired a key, and when: `Ledger.lastRemovals`. */
export interface KeyRemoval {
  runId: string;
  action: 'deleted' | 'retired';
  at: Date;
}

/** The run whose 422 a key's newest result is, when, and the platform's words: `Ledger.lastRefusals`. */
export interface KeyRefusal {
  runId: string;
  at: Date;
  message: string;
}
