import type { Ledger } from '../ledger/ledger.js';
import type { Logger } from '../log/logger.js';
import { runCalls } from '../metrics/process-metrics.js';
import { isParentKind, PARENT_KINDS } from '../model/intent.js';
import type { IntentResultInput } from '../model/result-records.js';
import type { RunRecord } from '../model/run-record.js';
import { coalescedWrites } from '../sync/execute/coalesced-calls.js';
import { runIntent } from '../sync/execute/execute-plan.js';
import { intentResult, isSuccess, rowResult } from '../sync/execute/intent-result.js';
import { createSendMarker } from '../sync/execute/send-marks.js';
import { DependencyGate, removalLookup } from '../sync/phases/dependency-gate.js';
import { KeyHolds } from '../sync/phases/key-holds.js';
import { noteLeftOut } from '../sync/phases/left-out-parents.js';
import { loadIdCache, type IdCache } from '../sync/processors/id-cache.js';
import {
  lastSentBeforeRemovalIn,
  lastSentIn,
  lastSentToDeletedAccountIn,
  syncedScheduleIn,
} from '../sync/processors/processor.js';
import type { SyncPlatform } from '../sync/processors/sync-platform.js';
import { answerLostInCrash } from '../sync/runs/resume-run.js';
import { restoreIntents, type SourceReadAgain } from '../sync/runs/restore-params.js';
import { withWriteCheck, type WriteCheck } from '../platform/write-guard.js';
import { unknownRunError } from '../ledger/ledger-error.js';
import { CODE } from '../errors/codes.js';
import { messageOf } from '../errors/evsync-error.js';
import { pendingReads } from './pending-reads.js';
import {
  JobRefused,
  IntentRateLimited,
  WORKER_NAME,
  type IntentJob,
  type IntentJobResult,
} from './intent-job.js';

export interface IntentHandlerDeps {
  ledger: Ledger;
  /**
   * The client for the conference a run wrote to, signed with that conference's key from
   * this worker's environment (`ConferencePlatforms`); throws `JobRefused`
   * when this worker has no credentials for it.
   */
  platformFor: (run: RunRecord, lane?: string) => Promise<SyncPlatform>;
  logger?: Logger;
  /** Told once per ledger this worker refuses jobs of (for `evsync status`). */
  onRefused?: (refusal: JobRefused) => void;
  /**
   * Told of each intent the platform answered 401 (it refused this worker's signature): answers
   * the refusal to hand the job back with, for a worker that holds the right key.
   */
  onSignatureRefused?: (run: RunRecord, problem: string) => JobRefused | undefined;
}

/** What one phase of one coordinator's pass needs around each intent, read once per worker. */
interface PhaseContext {
  run: RunRecord;
  /** The run's conference: its client, and the ledger seen from it (its id map). */
  platform: SyncPlatform;
  ledger: Ledger;
  ids: IdCache;
  gate: DependencyGate;
  markSendStarted: (item: { kind: IntentJob['kind']; key: string }) => Promise<void>;
}

/** How long the whole queue pauses when the platform rate limits through every wait. */
const RATE_LIMIT_PAUSE_MS = 5_000;

/** How long the keys newer runs recorded are trusted (`newerResults`). */
const NEWER_RESULTS_MS = 1_000;

/** Phases kept: a worker may take jobs of a few runs at once. */
const CONTEXTS_KEPT = 8;

/** Sets `key` in a map of at most `CONTEXTS_KEPT` entries, the oldest set going first. */
function keepNewest<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.set(key, value);
  if (map.size > CONTEXTS_KEPT) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}

/**
 * A distributed worker's side of a run: takes one job (a run id and an intent's key),
 * reads the planned intent from the ledger, sends it as the inline engine would and
 * records its result before the job is acknowledged. Delivery is at least once: a job
 * whose intent already has a result (its worker died after writing it) does nothing, and
 * processors look up before re-creating, so a second send duplicates nothing.
 */
export class IntentHandler {
  private readonly contexts = new Map<string, Promise<PhaseContext>>();
  private readonly sourcesRead = new Map<string, Promise<SourceReadAgain>>();
  private readonly record: (result: IntentResultInput) => Promise<void>;
  private readonly pending: ReturnType<typeof pendingReads>;
  /** Runs whose conference this worker refused, and why: said in the result if the queue gives up. */
  private readonly unserved = new Map<string, JobRefused>();
  /** See `newerResults`. */
  private readonly later = new Map<string, { at: number; keys: Promise<Set<string>> }>();
  private ledgerId: Promise<string> | undefined;
  private readonly refusedLedgers = new Set<string>();

  constructor(private readonly deps: IntentHandlerDeps) {
    this.record = coalescedWrites((results: IntentResultInput[]) => deps.ledger.recordResults(results));
    this.pending = pendingReads(deps.ledger);
  }

  /** `lane`: the id of the lane the job was taken from; none for the shared queue. */
  handle(
    job: IntentJob,
    holdsLock: () => Promise<boolean> = () => Promise.resolve(true),
    lane?: string,
  ): Promise<IntentJobResult> {
    // The calls made for this job count for its run (the run page's chart of calls).
    return runCalls.run(job.runId, () => this.handleOfRun(job, holdsLock, lane));
  }

  private async handleOfRun(
    job: IntentJob,
    holdsLock: () => Promise<boolean>,
    lane: string | undefined,
  ): Promise<IntentJobResult> {
    await this.requireLedger(job);
    const record = await this.pending(job);
    if (record === undefined) return { action: 'already recorded', worker: WORKER_NAME };
    const context = await this.contextOf(job, lane).catch((error: unknown) => {
      if (error instanceof JobRefused) this.unserved.set(job.runId, error);
      throw error;
    });
    const started = performance.now();
    let result: IntentResultInput;
    if (record.sendStartedAt !== null) {
      // Its call had started under a worker that died before recording the answer.
      result = answerLostInCrash(job.runId, record);
    } else {
      const restored = await restoreIntents(
        { ...this.deps, ledger: context.ledger, platform: context.platform, sourcesRead: this.sourcesRead },
        context.run,
        [record],
      );
      const item = restored.items.get(record);
      if (item === undefined) {
        const [unsendable] = restored.unsendable;
        if (unsendable === undefined)
          throw new Error(`intent ${job.kind} "${job.key}" could not be read back`);
        result = rowResult(job.runId, unsendable);
      } else {
        const outcome = await withWriteCheck(this.writeCheck(job, context.run, holdsLock), () =>
          runIntent(item, {
            gate: context.gate,
            context: {
              platform: context.platform,
              ids: context.ids,
              markSendStarted: context.markSendStarted,
              lastSent: lastSentIn(context.ledger),
              syncedSchedule: syncedScheduleIn(context.ledger),
              lastSentBeforeRemoval: lastSentBeforeRemovalIn(context.ledger),
              lastSentToDeletedAccount: lastSentToDeletedAccountIn(context.ledger),
            },
          }),
        );
        if (outcome.errorCode === CODE.EVSYNC_PLATFORM_WRITE_STALE) {
          // Not ours to record: the worker that holds the job, or the newer run, has the say.
          this.deps.logger?.warn(
            { runId: job.runId, kind: job.kind, key: job.key, reason: outcome.message },
            'write dropped: this worker no longer holds the job, or a newer run has recorded the key',
          );
          return { action: 'dropped', worker: WORKER_NAME };
        }
        // Rate limited through all of the client's waits: the queue waits, and tries it later.
        if (outcome.errorCode === CODE.EVSYNC_PLATFORM_RATE_LIMITED)
          throw new IntentRateLimited(RATE_LIMIT_PAUSE_MS);
        if (outcome.errorCode === CODE.EVSYNC_PLATFORM_UNAUTHORIZED) {
          const refusal = this.deps.onSignatureRefused?.(context.run, outcome.message ?? '401');
          // Nothing was done (a 401): back to the queue, and this worker's next job of the run
          // is refused before any call. A check-in's send mark goes first, or the next worker
          // would take it for an answer lost in a crash; where it cannot, the 401 is recorded.
          if (refusal !== undefined && (job.kind !== 'check_in' || (await unmarked(context, job)))) {
            for (const id of [...this.contexts.keys()])
              if (id.startsWith(`${job.runId}\u0000`)) this.contexts.delete(id);
            this.unserved.set(job.runId, refusal);
            throw refusal;
          }
        }
        result = intentResult(job.runId, item, outcome, performance.now() - started);
      }
    }
    await this.record({ ...result, worker: WORKER_NAME });
    // The ledger holds its id now: the phase's id cache may let it go (sync/processors/id-cache.ts).
    context.ids.recorded([result]);
    return { action: result.action, worker: WORKER_NAME };
  }

  /**
   * The queue gave a job up (its tries ran out, or it kept being rate limited): its intent
   * gets a failed result, so that the run ends and `evsync retry` can send it again.
   */
  async gaveUp(job: IntentJob, error: unknown, tries: number): Promise<void> {
    const record = await this.pending(job);
    if (record === undefined) return;
    // Refused by the workers for its conference or ledger: never tried, and why it says so.
    const unserved = this.unserved.get(job.runId);
    const why =
      unserved === undefined
        ? {
            attempts: tries,
            errorCode: CODE.EVSYNC_WORKER_GAVE_UP,
            errorMessage: `The workers gave this intent up after ${tries} tries: ${messageOf(error)}`,
          }
        : {
            attempts: 0,
            errorCode: CODE.EVSYNC_CONFERENCE_UNSERVED,
            errorMessage:
              `Not sent: no worker took it for ${unserved.host} after ${tries} offers (this one: ${unserved.reason}). ` +
              `Start a worker whose environment has the job's platform variables, then: evsync retry ${job.runId}`,
          };
    await this.record({
      runId: job.runId,
      kind: job.kind,
      key: job.key,
      action: 'failed',
      origin: record.origin,
      ...why,
      params: record.params,
      worker: WORKER_NAME,
    });
  }

  /**
   * Asked before each platform write of the job (`withWriteCheck`): whether this worker still
   * holds the job's lock (a worker paused past it, SIGSTOP or a long GC, finds another has
   * taken the job), and whether a newer run of the job has recorded the key since.
   */
  private writeCheck(job: IntentJob, run: RunRecord, holdsLock: () => Promise<boolean>): WriteCheck {
    return async () => {
      if (!(await holdsLock()))
        return 'this worker no longer holds the job (paused past its lock; another worker has it)';
      if ((await this.newerResults(run)).has(`${job.kind}\u0000${job.key}`))
        return 'a newer run of the job has recorded this key since';
      return undefined;
    };
  }

  /** Keys newer runs of the run's job have recorded (`Ledger.handledLater`), read at most once a second. */
  private newerResults(run: RunRecord): Promise<Set<string>> {
    const now = Date.now();
    const cached = this.later.get(run.id);
    if (cached !== undefined && now - cached.at < NEWER_RESULTS_MS) return cached.keys;
    const keys = this.deps.ledger.handledLater(run.id);
    keys.catch(() => this.later.delete(run.id));
    keepNewest(this.later, run.id, { at: now, keys });
    return keys;
  }

  /** A job of another ledger is refused, before anything is read: its run is not in this one. */
  private async requireLedger(job: IntentJob): Promise<void> {
    if (job.ledger === undefined) return;
    this.ledgerId ??= this.deps.ledger.ledgerId();
    const mine = await this.ledgerId;
    if (job.ledger !== mine) {
      const error = new JobRefused(
        `ledger ${job.ledger.slice(0, 8)}`,
        `this worker's ledger is ${mine.slice(0, 8)} (${this.deps.ledger.description}); check its DATABASE_URL`,
      );
      if (!this.refusedLedgers.has(job.ledger)) {
        this.refusedLedgers.add(job.ledger);
        this.deps.logger?.warn(
          { ledger: job.ledger, mine },
          `refusing jobs of another ledger: ${error.reason}`,
        );
        this.deps.onRefused?.(error);
      }
      this.unserved.set(job.runId, error);
      throw error;
    }
  }

  private contextOf(job: IntentJob, lane: string | undefined): Promise<PhaseContext> {
    const id = `${job.runId}\u0000${job.epoch}\u0000${job.phase}`;
    let context = this.contexts.get(id);
    if (context === undefined) {
      context = this.loadContext(job.runId, lane);
      // A failed load is not kept: the next job of the phase tries again.
      context.catch(() => this.contexts.delete(id));
      keepNewest(this.contexts, id, context);
    }
    return context;
  }

  /**
   * Read when a worker takes the phase's first job: the previous phase has drained by then
   * (the coordinator enqueues a phase only after it), so the ids and the parents' outcomes
   * are final for this phase.
   */
  private async loadContext(runId: string, lane: string | undefined): Promise<PhaseContext> {
    const run = await this.deps.ledger.getRun(runId);
    if (run === undefined) throw unknownRunError(runId);
    // Refused here, before anything is read or sent, when this worker cannot sign for the run's conference.
    const platform = await this.deps.platformFor(run, lane);
    const ledger =
      run.conference === null
        ? this.deps.ledger
        : this.deps.ledger.forConference({ ...run.conference, keyId: null });
    const ids = await loadIdCache(ledger);
    // As the inline engine's gate: it asks the ledger what deleted a parent, and knows the
    // parents rows left out on purpose (docs/sync-engine.md, "Phases").
    const gate = new DependencyGate(
      (dep) => ids.has(dep.kind, dep.clientId),
      removalLookup(ledger),
      await KeyHolds.load(ledger.holds(), { runId, jobName: run.jobName }),
    );
    for await (const result of ledger.eachResult(runId, {
      kinds: PARENT_KINDS,
      actions: ['failed', 'skipped'],
    })) {
      if (isParentKind(result.kind) && !isSuccess(result.action))
        gate.settle({ kind: result.kind, clientId: result.key }, false, result.errorMessage ?? result.action);
    }
    for await (const result of ledger.eachResult(runId, {
      actions: ['skipped'],
      errorCodes: [CODE.EVSYNC_ROW_SKIPPED],
    }))
      noteLeftOut(gate, { ...result, message: result.errorMessage });
    return { run, platform, ledger, ids, gate, markSendStarted: createSendMarker(ledger, runId) };
  }
}

/** Whether the job's send mark was taken back (`Ledger.unmarkSendStarted`). */
async function unmarked(context: PhaseContext, job: IntentJob): Promise<boolean> {
  try {
    await context.ledger.unmarkSendStarted(job.runId, job);
    return true;
  } catch {
    return false;
  }
}
