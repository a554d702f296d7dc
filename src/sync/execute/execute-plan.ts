import { CODE } from '../../errors/codes.js';
import type { ResultWriter } from '../../ledger/result-writer.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import type { Logger } from '../../log/logger.js';
import { isParentKind, parentRefs, type IntentKind } from '../../model/intent.js';
import type { DependencyGate } from '../phases/dependency-gate.js';
import { lostPicksMessage, withoutMissingPicks } from '../phases/schedule-picks.js';
import type { PhaseName } from '../phases/sync-phases.js';
import { PHASES } from '../phases/sync-phases.js';
import type { ProcessOutcome } from '../processors/process-outcome.js';
import { processIntent } from '../processors/process-intent.js';
import type { ProcessorContext } from '../processors/processor.js';
import type { ProgressSink } from '../progress/progress-sink.js';
import { silentProgress } from '../progress/progress-sink.js';
import { createInlineQueue } from '../queue/inline-queue.js';
import type { QueueOptions, WorkQueue } from '../queue/work-queue.js';
import { intentResult, isSuccess } from './intent-result.js';
import { platformDownLimit, PlatformDownStreak } from './platform-down.js';
import { feedOf, PlanStopped, type PlanFeed } from './plan-feed.js';

export type QueueFactory = <W, R>(options: QueueOptions<W, R>) => WorkQueue<W, R>;

/** Sends a run's planned work: `executePlan` in this process, or a distributed mode's executor. */
export type PlanExecutor = (options: ExecuteOptions) => Promise<ExecuteResult>;

export interface ExecuteOptions {
  runId: string;
  /** The run's work in memory; ignored when `feed` is given. */
  work: readonly PlannedIntent[];
  /** The run's work phase by phase in chunks (a streamed plan). @defaultValue `feedOf(work)` */
  feed?: PlanFeed;
  context: ProcessorContext;
  gate: DependencyGate;
  writer: ResultWriter;
  /** Intents in flight at once: the job's `rate.concurrency`. */
  concurrency: number;
  /** @defaultValue the inline queue */
  queueFactory?: QueueFactory;
  /** Aborting it stops taking new work; intents in flight finish and are recorded. */
  signal?: AbortSignal;
  progress?: ProgressSink;
  logger?: Logger;
  /**
   * Consecutive intents that fail platform-wide (unreachable, or the signature refused:
   * see `platform-down.ts`) before the run is aborted instead of failing every remaining row.
   * @defaultValue max(10, 2 × concurrency)
   */
  platformDownLimit?: number;
}

export interface ExecuteResult {
  /** Why the run stopped early, if it did. */
  stopped: 'interrupted' | 'aborted' | undefined;
  reason?: string;
  /** What to do instead of `evsync resume` when a resume cannot finish what stopped the run. */
  nextStep?: string;
  processed: number;
}

/**
 * A resume sends only what the plan recorded, so it cannot send what a plan that failed to
 * be recorded left out: the next run of the job plans it again (nothing is sent twice).
 */
export const PLAN_NOT_RECORDED_STEP =
  'Fix the cause, then run the job again: it sends what this run did not, and nothing twice (a resume finishes only the part of the plan that was recorded).';

/** `text` without the full stop it may end with, to sit inside a sentence. */
export function withoutFullStop(text: string): string {
  return text.trimEnd().replace(/\.+$/, '');
}

/**
 * Sends the planned work phase by phase through the queue, one ledger result per intent.
 * A phase starts only when the one before it has drained, so every link sees the final
 * outcome of the objects it names.
 */
export async function executePlan(options: ExecuteOptions): Promise<ExecuteResult> {
  const progress = options.progress ?? silentProgress;
  const makeQueue = options.queueFactory ?? createInlineQueue;
  const streak = new PlatformDownStreak(platformDownLimit(options));
  let abortReason: string | undefined;
  let nextStep: string | undefined;
  let processed = 0;
  let current: WorkQueue<PlannedIntent, ProcessOutcome> | undefined;

  const stop = (): void => void current?.close();
  options.signal?.addEventListener('abort', stop);
  try {
    for await (const { phase, chunks, total, growing } of options.feed ?? feedOf(options.work)) {
      if (options.signal?.aborted || abortReason) break;
      streak.newPhase();
      let count = 0;
      const handle = async (item: PlannedIntent): Promise<ProcessOutcome> => {
        const started = performance.now();
        const outcome = await runIntent(item, options);
        await options.writer.write(intentResult(options.runId, item, outcome, performance.now() - started));
        processed += 1;
        progress.advanced(phase, outcome.action);
        const platformDown = streak.observe(outcome);
        if (platformDown !== undefined && !abortReason) {
          abortReason = platformDown;
          stop();
        }
        return outcome;
      };
      const queue = makeQueue<PlannedIntent, ProcessOutcome>({
        handler: handle,
        concurrency: options.concurrency,
      });
      current = queue;
      queue.on('failed', (item, error) => {
        options.logger?.error({ err: error, kind: item.kind, key: item.key }, 'intent handler crashed');
      });
      for await (const chunk of chunks) {
        if (chunk.length === 0) continue;
        if (queue.closed) break;
        const more = growing?.() ?? false;
        if (count > 0) progress.phaseGrew?.(phase, total(), more);
        else progress.phaseStarted(phase, total(), more);
        count += chunk.length;
        // The ids the chunk's processors and gate will ask for, in one statement per kind; and
        // the keys another job of the conference may have held since the chunk before.
        await options.context.ids.prefetch(idRefsOf(chunk));
        await options.gate.holds.refresh();
        // A signal that came while the ledger answered has closed the queue.
        if (queue.closed) break;
        await queue.enqueue(chunk);
        // A streamed plan reads on only while the queue has little waiting: memory stays flat.
        await backlogBelow(queue, BACKLOG);
      }
      await queue.drain();
      await queue.close();
      if (count === 0) continue;
      abortReason ??= streak.everySentFailed();
      progress.phaseEnded(phase);
      logPhase(options.logger, phase, count);
    }
  } catch (error) {
    // The intents in flight finish and are recorded before the run stops: a broken source
    // must not leave sent intents without a result.
    if (!(error instanceof PlanStopped)) {
      await current?.close();
      throw error;
    }
    // What was handed over has been sent and recorded; the rest waits for the fix.
    await current?.drain();
    await current?.close();
    abortReason ??= error.reason;
    if (error.nextStep !== undefined) nextStep ??= error.nextStep;
  } finally {
    options.signal?.removeEventListener('abort', stop);
  }
  if (abortReason)
    return { stopped: 'aborted', reason: abortReason, ...(nextStep ? { nextStep } : {}), processed };
  if (options.signal?.aborted) return { stopped: 'interrupted', reason: 'stopped by a signal', processed };
  return { stopped: undefined, processed };
}

/**
 * Sends one intent unless a parent it names is missing, and settles it in the gate when it
 * is a parent: the inline queue's handler and a distributed worker both go through here.
 */
export async function runIntent(
  item: PlannedIntent,
  options: Pick<ExecuteOptions, 'gate' | 'context'>,
): Promise<ProcessOutcome> {
  const outcome = await gatedOutcome(item, options);
  if (!isParentKind(item.kind)) return outcome;
  const { gate } = options;
  // A merged user's aliases its account holds: one the platform refused is another user's.
  const parent = { kind: item.kind, key: item.key, aliases: outcome.aliases ?? item.aliases };
  // A key refused as now another person is held for every job; one that synced, or whose
  // record was removed, is let go (`phases/key-holds.ts`).
  if (outcome.heldKey !== undefined)
    await gate.holds.hold({ kind: item.kind, clientId: outcome.heldKey }, outcome.errorCode ?? '');
  if (item.plannedAction === 'delete' || item.plannedAction === 'retire') {
    if (isSuccess(outcome.action)) await gate.holds.release(parentRefs(parent));
  } else if (isSuccess(outcome.action)) {
    await gate.passed(parent);
    for (const alias of item.aliases ?? [])
      if (!parent.aliases?.includes(alias))
        gate.settle({ kind: item.kind, clientId: alias }, false, outcome.message ?? outcome.action);
  } else for (const ref of parentRefs(parent)) gate.settle(ref, false, outcome.message ?? outcome.action);
  return outcome;
}

/**
 * The dependency gate's say, then the processor's: a dependent whose parent is missing is
 * skipped with the parent's true reason and code; a schedule goes without the events that
 * are missing, its result carrying the warning (`schedule-picks.ts`).
 */
async function gatedOutcome(
  item: PlannedIntent,
  options: Pick<ExecuteOptions, 'gate' | 'context'>,
): Promise<ProcessOutcome> {
  if (item.dependsOn.length === 0) return processIntent(item, options.context);
  const missing = await options.gate.missing(item.dependsOn);
  if (missing.length === 0) return processIntent(item, options.context);
  const partial = withoutMissingPicks(item, missing, (m) => options.gate.known(m.parent));
  if (partial === undefined) {
    const first = (await options.gate.first(item.dependsOn))!;
    return { action: 'skipped', errorCode: first.code, message: first.message, attempts: 0 };
  }
  // Short of lost picks (an event the platform refused in this run, say), the list may be the
  // one the platform has: not sent again, told as the plan tells a lost pick (`lostPicks`).
  if (
    partial.code === CODE.EVSYNC_SCHEDULE_PICKS_MISSING &&
    (await options.context.syncedSchedule?.(item.key)) === partial.item.hash
  )
    return {
      action: 'skipped',
      errorCode: partial.code,
      message: lostPicksMessage(partial.warning),
      attempts: 0,
    };
  const outcome = await processIntent(partial.item, options.context);
  if (!isSuccess(outcome.action) || partial.warning === '') return outcome;
  // A success that carries a warning: the code says which, the message names every missing pick.
  const message = [outcome.message, partial.warning].filter(Boolean).join('; ');
  return { ...outcome, errorCode: partial.code, message, hash: partial.item.hash };
}

/** The users and events whose ids sending these intents asks for: their own, and their parents'. */
function* idRefsOf(chunk: readonly PlannedIntent[]): Iterable<{ kind: IntentKind; key: string }> {
  for (const item of chunk) {
    if (isParentKind(item.kind)) {
      yield item;
      for (const alias of item.aliases ?? []) yield { kind: item.kind, key: alias };
    }
    for (const dep of item.dependsOn) yield { kind: dep.kind, key: dep.clientId };
  }
}

/** Intents waiting in the queue before a streamed plan reads on. */
const BACKLOG = 2_000;

/** Resolves once the queue has no more than `limit` intents waiting (or is closed). */
function backlogBelow(queue: WorkQueue<PlannedIntent, ProcessOutcome>, limit: number): Promise<void> {
  if (queue.closed || queue.stats().waiting <= limit) return Promise.resolve();
  return new Promise((resolve) => {
    const check = (): void => {
      if (!queue.closed && queue.stats().waiting > limit) return;
      offCompleted();
      offDrained();
      resolve();
    };
    const offCompleted = queue.on('completed', check);
    const offDrained = queue.on('drained', check);
  });
}

function logPhase(logger: Logger | undefined, phase: PhaseName, count: number): void {
  logger?.debug({ phase, count, order: PHASES.indexOf(phase) }, 'phase done');
}
