import type { Ledger } from '../ledger/ledger.js';
import type { Logger } from '../log/logger.js';
import { isParentKind, PARENT_KINDS } from '../model/intent.js';
import type { IntentResultInput } from '../model/result-records.js';
import type { RunRecord } from '../model/run-record.js';
import { coalescedWrites } from '../sync/execute/coalesced-calls.js';
import { runIntent } from '../sync/execute/execute-plan.js';
import { intentResult, isSuccess, rowResult } from '../sync/execute/intent-result.js';
import { createSendMarker } from '../sync/execute/send-marks.js';
import { DependencyGate } from '../sync/phases/dependency-gate.js';
import { IdCache } from '../sync/processors/id-cache.js';
import type { SyncPlatform } from '../sync/processors/sync-platform.js';
import { answerLostInCrash } from '../sync/runs/resume-run.js';
import { restoreIntents, type SourceReadAgain } from '../sync/runs/restore-params.js';
import { unknownRunError } from '../ledger/ledger-error.js';
import { CODE } from '../errors/codes.js';
import { messageOf } from '../errors/evsync-error.js';
import { pendingReads } from './pending-reads.js';
import {
  ConferenceUnavailable,
  IntentRateLimited,
  WORKER_NAME,
  type IntentJob,
  type IntentJobResult,
} from './intent-job.js';

export interface IntentHandlerDeps {
  ledger: Ledger;
  /**
   * The client for the conference a run wrote to, signed with that conference's key from
   * this worker's environment (`ConferencePlatforms`); throws `ConferenceUnavailable`
   * when this worker has no credentials for it.
   */
  platformFor: (run: RunRecord) => Promise<SyncPlatform>;
  logger?: Logger;
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

/** Phases kept: a worker may take jobs of a few runs at once. */
const CONTEXTS_KEPT = 8;

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
  private readonly unserved = new Map<string, ConferenceUnavailable>();

  constructor(private readonly deps: IntentHandlerDeps) {
    this.record = coalescedWrites((results: IntentResultInput[]) => deps.ledger.recordResults(results));
    this.pending = pendingReads(deps.ledger);
  }

  async handle(job: IntentJob): Promise<IntentJobResult> {
    const record = await this.pending(job);
    if (record === undefined) return { action: 'already recorded', worker: WORKER_NAME };
    const context = await this.contextOf(job).catch((error: unknown) => {
      if (error instanceof ConferenceUnavailable) this.unserved.set(job.runId, error);
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
        const outcome = await runIntent(item, {
          gate: context.gate,
          context: {
            platform: context.platform,
            ids: context.ids,
            markSendStarted: context.markSendStarted,
          },
        });
        // Rate limited through all of the client's waits: the queue waits, and tries it later.
        if (outcome.errorCode === CODE.EVSYNC_PLATFORM_RATE_LIMITED)
          throw new IntentRateLimited(RATE_LIMIT_PAUSE_MS);
        result = intentResult(job.runId, item, outcome, performance.now() - started);
      }
    }
    await this.record({ ...result, worker: WORKER_NAME });
    return { action: result.action, worker: WORKER_NAME };
  }

  /**
   * The queue gave a job up (its tries ran out, or it kept being rate limited): its intent
   * gets a failed result, so that the run ends and `evsync retry` can send it again.
   */
  async gaveUp(job: IntentJob, error: unknown, tries: number): Promise<void> {
    const record = await this.pending(job);
    if (record === undefined) return;
    const unserved = this.unserved.get(job.runId);
    if (unserved !== undefined) {
      await this.record({
        runId: job.runId,
        kind: job.kind,
        key: job.key,
        action: 'failed',
        origin: record.origin,
        attempts: 0,
        errorCode: CODE.EVSYNC_CONFERENCE_UNSERVED,
        errorMessage:
          `Not sent: no worker took it for ${unserved.host} after ${tries} offers (this one: ${unserved.reason}). ` +
          `Start a worker whose environment has the job's platform variables, then: evsync retry ${job.runId}`,
        params: record.params,
        worker: WORKER_NAME,
      });
      return;
    }
    await this.record({
      runId: job.runId,
      kind: job.kind,
      key: job.key,
      action: 'failed',
      origin: record.origin,
      attempts: tries,
      errorCode: CODE.EVSYNC_WORKER_GAVE_UP,
      errorMessage: `The workers gave this intent up after ${tries} tries: ${messageOf(error)}`,
      params: record.params,
      worker: WORKER_NAME,
    });
  }

  private contextOf(job: IntentJob): Promise<PhaseContext> {
    const id = `${job.runId}\u0000${job.epoch}\u0000${job.phase}`;
    let context = this.contexts.get(id);
    if (context === undefined) {
      context = this.loadContext(job.runId);
      // A failed load is not kept: the next job of the phase tries again.
      context.catch(() => this.contexts.delete(id));
      this.contexts.set(id, context);
      if (this.contexts.size > CONTEXTS_KEPT) {
        const oldest = this.contexts.keys().next().value;
        if (oldest !== undefined) this.contexts.delete(oldest);
      }
    }
    return context;
  }

  /**
   * Read when a worker takes the phase's first job: the previous phase has drained by then
   * (the coordinator enqueues a phase only after it), so the ids and the parents' outcomes
   * are final for this phase.
   */
  private async loadContext(runId: string): Promise<PhaseContext> {
    const run = await this.deps.ledger.getRun(runId);
    if (run === undefined) throw unknownRunError(runId);
    // Refused here, before anything is read or sent, when this worker cannot sign for the run's conference.
    const platform = await this.deps.platformFor(run);
    const ledger =
      run.conference === null
        ? this.deps.ledger
        : this.deps.ledger.forConference({ ...run.conference, keyId: null });
    const ids = new IdCache(
      await Promise.all(PARENT_KINDS.map(async (kind) => [kind, await ledger.loadIdMap(kind)] as const)),
    );
    const gate = new DependencyGate((dep) => ids.has(dep.kind, dep.clientId));
    for await (const result of ledger.eachResult(runId, {
      kinds: PARENT_KINDS,
      actions: ['failed', 'skipped'],
    })) {
      if (isParentKind(result.kind) && !isSuccess(result.action))
        gate.settle({ kind: result.kind, clientId: result.key }, false, result.errorMessage ?? result.action);
    }
    return { run, platform, ledger, ids, gate, markSendStarted: createSendMarker(ledger, runId) };
  }
}
