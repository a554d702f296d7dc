import { randomBytes } from 'node:crypto';
import type { Ledger } from '../ledger/ledger.js';
import {
  executePlan,
  type ExecuteOptions,
  type ExecuteResult,
  type PlanExecutor,
} from '../sync/execute/execute-plan.js';
import { type PhaseName } from '../sync/phases/sync-phases.js';
import { feedOf, PlanStopped } from '../sync/execute/plan-feed.js';
import { isRedisUnavailable } from '../sync/queue/redis-connection.js';
import { messageOf } from '../errors/evsync-error.js';
import type { ErrorCode } from '../errors/codes.js';
import { loadIdCache } from '../sync/processors/id-cache.js';
import { followPhase, heldJobsEnded } from './follow-phase.js';
import type { IntentJob } from './intent-job.js';

/** What the coordinator needs of the queue: see `intent-queue.ts`. */
export interface IntentJobSink {
  /** Adds the jobs (deduplicated by job id). */
  enqueue(jobs: readonly IntentJob[]): Promise<void>;
  /**
   * Removes the run's jobs that no worker has taken, whatever pass enqueued them: a resume
   * starts from the ledger, and an earlier pass's leftovers would send its intents twice.
   */
  withdrawRun(runId: string): Promise<number>;
  /** Jobs of any run waiting, delayed or active. */
  outstanding(): Promise<number>;
  /** The run's jobs that workers hold now, whatever pass enqueued them. */
  activeOf(runId: string): Promise<number>;
  /** Worker processes connected to the queue. */
  workers(): Promise<number>;
  /**
   * Why no worker can take the run's jobs while workers are connected (none holds the
   * credentials of its conference key, or the platform refused the signature of those that
   * do), or undefined when one can, or none is connected.
   */
  unserved?(): Promise<UnservedLane | undefined>;
  /** Notes the phase a run is in, with its progress, for `evsync status`. */
  notePhase(runId: string, phase: RunPhaseNote): Promise<void>;
}

/** Why a run's lane has no worker (`IntentJobSink.unserved`): the reason, its code and what to do. */
export interface UnservedLane {
  reason: string;
  code: ErrorCode;
  advice: string;
}

/** A run's current phase as `evsync status` shows it. */
export interface RunPhaseNote {
  phase: PhaseName;
  total: number;
  done: number;
  startedAt: string;
}

export interface DistributedExecutorOptions {
  ledger: Pick<
    Ledger,
    | 'resultCounts'
    | 'idPages'
    | 'platformIdsOf'
    | 'pendingIntents'
    | 'results'
    | 'planSpan'
    | 'mergeRunOptions'
  >;
  sink: IntentJobSink;
  /** How often the ledger is read for progress. @defaultValue 250 ms */
  pollMs?: number;
  /**
   * No new result for this long while the queue holds none of the phase's jobs: the jobs
   * were lost (Redis restarted empty) and those without a result are enqueued again.
   * @defaultValue 10 s
   */
  stallMs?: number;
  /**
   * How long a run's lane may go unserved (`IntentJobSink.unserved`) before the run stops.
   * @defaultValue 10 s: workers look for new lanes every second
   */
  unservedMs?: number;
  /** Writes the run's rate and the queue's limits again: Redis lost them with the jobs. */
  restoreSettings?: () => Promise<void>;
  /** The ledger's id (`Ledger.ledgerId`), carried by each job: a worker of another ledger refuses it. */
  ledgerId?: string;
}

/**
 * Distributed mode's executor (docs/distributed.md): phase by phase, the coordinator
 * enqueues each intent's key and follows the ledger, where workers record the results;
 * the next phase is enqueued only once every intent of this one has its result, which
 * keeps the inline engine's dependency order. Mirror deletes of users and events (the last
 * phase) are sent from here, through the same shared rate limit: whether a record is
 * still another source key's needs every key of the run's source, which only the
 * coordinator holds.
 */
export function distributedExecutor(options: DistributedExecutorOptions): PlanExecutor {
  return (execute) => runPhases(options, execute);
}

async function runPhases(
  options: DistributedExecutorOptions,
  execute: ExecuteOptions,
): Promise<ExecuteResult> {
  const epoch = randomBytes(6).toString('base64url');
  const earlierPass = await settleEarlierPass(options.sink, execute);
  let processed = 0;
  try {
    for await (const work of execute.feed ?? feedOf(execute.work)) {
      if (execute.signal?.aborted) break;
      if (work.phase === 'removals') {
        // Sent from here (see above), chunk by chunk as the feed reads them from the ledger.
        // The ids the workers gave users and events in this run, for the deletes sent here.
        await loadIdCache(options.ledger, execute.context.ids);
        const inline = await executePlan({ ...execute, work: [], feed: [work] });
        processed += inline.processed;
        if (inline.stopped) return { ...inline, processed };
        continue;
      }
      // Workers read this run's results when they take a phase's first job: the rows the plan
      // left out on purpose (written here, batched) must be in the ledger by then.
      if (work.phase !== 'users') await execute.writer.flush();
      const done = await followPhase(options, execute, work, epoch, earlierPass);
      processed += done.ended;
      if (done.stopped !== undefined) return stoppedBy(done.stopped, processed);
      if (done.abort !== undefined) return { stopped: 'aborted', reason: done.abort, processed };
      if (done.ended < done.enqueued) break;
    }
  } catch (error) {
    return stoppedBy(error, processed, execute.runId);
  }
  if (execute.signal?.aborted) return { stopped: 'interrupted', reason: 'stopped by a signal', processed };
  return { stopped: undefined, processed };
}

/**
 * Before a pass enqueues anything: withdraws the jobs an earlier pass of the run left in
 * the queue (a resume starts from the ledger) and waits for those workers still hold, so
 * that no intent is sent by two passes at once. Returns whether there was such a pass:
 * the intents it finished meanwhile are then left out as the phases are enqueued.
 */
async function settleEarlierPass(sink: IntentJobSink, execute: ExecuteOptions): Promise<boolean> {
  let withdrawn = await sink.withdrawRun(execute.runId);
  let held = await sink.activeOf(execute.runId);
  // Jobs held now may record their results while this pass reads its plan: the pass must
  // leave those intents out even once every held job has ended.
  const anyHeld = held > 0;
  if (anyHeld) {
    execute.logger?.info({ held }, 'waiting for the jobs of an earlier pass that workers are finishing');
    held = await heldJobsEnded(sink, execute.runId, execute.signal);
    // A held job whose worker died is back in the queue by now.
    withdrawn += await sink.withdrawRun(execute.runId);
    if (held > 0)
      execute.logger?.warn(
        { held },
        'jobs of an earlier pass are still held by workers: they may send twice',
      );
  }
  if (withdrawn > 0)
    execute.logger?.info({ withdrawn }, "removed an earlier pass's jobs of the run from the queue");
  return withdrawn > 0 || anyHeld;
}

/** The reason a detached run ends its first pass with (then a worker carries it on). */
export const DETACHED = 'detached: a worker sends the plan';

/**
 * `evsync run --detach`: the plan is recorded, then handed to the workers (`follow`), and
 * the command returns. A worker sends the run as `evsync resume` would, once this process
 * has let go of the job.
 */
export function detachedExecutor(follow: (runId: string) => Promise<void>): PlanExecutor {
  return async (execute) => {
    if (execute.feed) {
      // A streamed plan is recorded as it is read: read it to its end, sending nothing.
      try {
        for await (const work of execute.feed) for await (const chunk of work.chunks) void chunk;
      } catch (error) {
        return stoppedBy(error, 0);
      }
    }
    await follow(execute.runId);
    return { stopped: 'interrupted', reason: DETACHED, processed: 0 };
  };
}

/** The run's end when its streamed plan stopped it (`PlanStopped`); any other error goes on. */
function stoppedBy(error: unknown, processed: number, runId?: string): ExecuteResult {
  if (isRedisUnavailable(error) && runId !== undefined) {
    // The ledger holds every result recorded so far; only the queue is gone.
    return {
      stopped: 'aborted',
      reason: `Redis stopped answering (${redisProblem(error)}): the run stopped; the workers' results so far are in the ledger`,
      nextStep: `Once Redis answers again (REDIS_URL), finish it with: evsync resume ${runId} (it sends what is left, nothing twice)`,
      processed,
    };
  }
  if (!(error instanceof PlanStopped)) throw error;
  return {
    stopped: 'aborted',
    reason: error.reason,
    ...(error.nextStep ? { nextStep: error.nextStep } : {}),
    processed,
  };
}

/** What went wrong with Redis, in a few words (ioredis's own message names its options). */
function redisProblem(error: unknown): string {
  return error instanceof Error && error.name === 'MaxRetriesPerRequestError'
    ? 'the connection was lost and a command given up'
    : messageOf(error);
}
