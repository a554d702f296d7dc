import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Ledger } from '../ledger/ledger.js';
import { PARENT_KINDS, type IntentKind } from '../model/intent.js';
import type { ActionCounts, ResultAction, RunResultCounts } from '../model/result-records.js';
import {
  executePlan,
  type ExecuteOptions,
  type ExecuteResult,
  type PlanExecutor,
} from '../sync/execute/execute-plan.js';
import { phaseOf, type PhaseName } from '../sync/phases/sync-phases.js';
import type { PlannedIntent } from '../model/planned-intent.js';
import type { RunRecord } from '../model/run-record.js';
import { feedOf, PlanStopped, type PhaseWork } from '../sync/execute/plan-feed.js';
import { silentProgress } from '../sync/progress/progress-sink.js';
import { isRedisUnavailable } from '../sync/queue/redis-connection.js';
import { messageOf } from '../errors/evsync-error.js';
import {
  CERTAINLY_DOWN_CODES,
  PLATFORM_DOWN_CODES,
  platformDownLimit,
  platformDownReason,
} from '../sync/execute/platform-down.js';
import { DownCountStreak } from './down-count-streak.js';
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
  /** Notes the phase a run is in, with its progress, for `evsync status`. */
  notePhase(runId: string, phase: RunPhaseNote): Promise<void>;
}

/** A run's current phase as `evsync status` shows it. */
export interface RunPhaseNote {
  phase: PhaseName;
  total: number;
  done: number;
  startedAt: string;
}

export interface DistributedExecutorOptions {
  ledger: Pick<Ledger, 'resultCounts' | 'idPages' | 'pendingIntents' | 'results'>;
  sink: IntentJobSink;
  /** How often the ledger is read for progress. @defaultValue 250 ms */
  pollMs?: number;
  /**
   * No new result for this long while the queue holds none of the phase's jobs: the jobs
   * were lost (Redis restarted empty) and those without a result are enqueued again.
   * @defaultValue 10 s
   */
  stallMs?: number;
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
        await refreshIds(options.ledger, execute);
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
 * How long a pass waits for the jobs of an earlier pass of the run that workers still
 * hold: a job whose worker died goes back to the queue after its lock (10 s) and the next
 * stalled-job check (5 s), and is then withdrawn.
 */
const EARLIER_PASS_WAIT_MS = 30_000;

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

/**
 * Waits up to `EARLIER_PASS_WAIT_MS` for the run's jobs that workers hold to end (recorded),
 * or until `signal` aborts; answers how many are still held.
 */
async function heldJobsEnded(sink: IntentJobSink, runId: string, signal?: AbortSignal): Promise<number> {
  const until = Date.now() + EARLIER_PASS_WAIT_MS;
  let held = await sink.activeOf(runId);
  while (held > 0 && Date.now() < until && !signal?.aborted) {
    await sleep(250);
    held = await sink.activeOf(runId);
  }
  return held;
}

/**
 * Jobs enqueued at most ahead of the phase's results: the coordinator reads a streamed
 * plan on only as the workers catch up, so its memory and Redis's stay flat whatever the
 * size of the phase (docs/distributed.md, "The flow").
 */
const ENQUEUED_AHEAD = 10_000;

/**
 * Enqueues one phase chunk by chunk as the feed hands it over, and waits until the ledger
 * holds a result for each of its intents, reporting progress from the counts of results
 * the workers wrote. Returns how many were enqueued and ended (fewer when stopped), why
 * the run must stop when the platform is down (as `executePlan` stops: `platform-down.ts`),
 * and the feed's own error (a streamed plan that stopped) once what it handed over ended.
 */
async function followPhase(
  options: DistributedExecutorOptions,
  execute: ExecuteOptions,
  work: PhaseWork,
  epoch: string,
  earlierPass: boolean,
): Promise<{ enqueued: number; ended: number; abort?: string; stopped?: unknown }> {
  const { ledger, sink } = options;
  const { phase } = work;
  const downStreak = new DownCountStreak(platformDownLimit(execute));
  let pollMs = options.pollMs ?? 250;
  const stallMs = options.stallMs ?? 10_000;
  const progress = execute.progress ?? silentProgress;
  const kinds = new Set<IntentKind>();
  // Workers write only this phase's results now (the previous phase has drained); what
  // they wrote before, in an earlier pass, is the baseline.
  const baseline = sumByAction(await ledger.resultCounts(execute.runId, { byWorkers: true }));
  const downBaseline = await platformDownCount(ledger, execute.runId, PLATFORM_DOWN_CODES);
  const certainBaseline = await platformDownCount(ledger, execute.runId, CERTAINLY_DOWN_CODES);
  const startedAt = new Date().toISOString();
  const note = (done: number): Promise<void> =>
    sink.notePhase(execute.runId, { phase, total: work.total(), done, startedAt }).catch(() => undefined);

  let enqueued = 0;
  let ended = 0;
  let feeding = true;
  let fed: unknown;
  let stop = false;
  const enqueueing = (async () => {
    for await (const chunk of work.chunks) {
      while (enqueued - ended >= ENQUEUED_AHEAD && !stop) await sleep(pollMs);
      if (stop || execute.signal?.aborted) return;
      // Once an earlier pass has settled, only what is still pending: a worker may take an
      // intent read ahead for its job, trusting that no other pass writes its result.
      const items = earlierPass ? await stillPending(ledger, execute.runId, chunk) : chunk;
      if (items.length === 0) continue;
      await sink.enqueue(
        items.map((item): IntentJob => ({
          runId: execute.runId,
          epoch,
          phase,
          kind: item.kind,
          key: item.key,
          ...(options.ledgerId === undefined ? {} : { ledger: options.ledgerId }),
        })),
      );
      for (const item of items) kinds.add(item.kind);
      if (enqueued === 0) {
        progress.phaseStarted(phase, work.total(), work.growing?.() ?? false);
        execute.logger?.info({ phase }, 'phase being enqueued for the workers');
        await note(0);
      } else progress.phaseGrew?.(phase, work.total(), work.growing?.() ?? false);
      enqueued += items.length;
    }
  })()
    .catch((error: unknown) => {
      fed = error;
    })
    .finally(() => {
      feeding = false;
    });

  let seen: ActionCounts = {};
  let requeued = 0;
  let lastChange = Date.now();
  let lastWorkerNotice = 0;
  let lastWorkerCheck = 0;
  const halt = async (): Promise<void> => {
    stop = true;
    await enqueueing;
    // Jobs a worker has taken finish there and are recorded, before the run's counts are
    // taken (as the inline engine finishes what is in flight); the rest stay pending.
    await sink.withdrawRun(execute.runId);
    // Not cut short by the signal that stopped the run: a stopped run finishes its in-flight work.
    const held = await heldJobsEnded(sink, execute.runId);
    if (held > 0)
      execute.logger?.warn({ held }, 'jobs still held by workers: their results come after the summary');
  };
  try {
    while (feeding || ended < enqueued) {
      if (execute.signal?.aborted) {
        await halt();
        return { enqueued, ended };
      }
      await sleep(pollMs);
      const asked = performance.now();
      const now = subtract(
        sumByAction(await ledger.resultCounts(execute.runId, { byWorkers: true })),
        baseline,
      );
      // Counting a big run's results costs the database more: read at most a tenth of the time.
      pollMs = Math.max(options.pollMs ?? 250, (performance.now() - asked) * 10);
      for (const [action, count] of Object.entries(now) as Array<[ResultAction, number]>) {
        const before = seen[action] ?? 0;
        for (let n = before; n < count; n += 1) progress.advanced(phase, action);
      }
      const total = sum(now);
      if (total !== ended) {
        lastChange = Date.now();
        await note(total);
      }
      const failedMore = (now.failed ?? 0) > (seen.failed ?? 0);
      ended = total;
      seen = now;
      const over = !feeding && ended >= enqueued;
      const sent = total - (now.skipped ?? 0);
      const down = failedMore
        ? (await platformDownCount(ledger, execute.runId, PLATFORM_DOWN_CODES)) - downBaseline
        : undefined;
      const inRow = downStreak.observe(sent, down, over);
      // A phase too small for the streak stops only on failures that are never a row's own.
      const stops =
        inRow !== undefined &&
        (!inRow.wholePhase ||
          (await platformDownCount(ledger, execute.runId, CERTAINLY_DOWN_CODES)) - certainBaseline === sent);
      if (stops) {
        const abort = await platformDownWhy(ledger, execute.runId, kinds, inRow.count);
        await halt();
        execute.logger?.error({ phase, reason: abort }, 'platform down: the run stops');
        return { enqueued, ended, abort };
      }
      // Said at once, not after a stall: a run waiting for a worker sends nothing meanwhile.
      if (Date.now() - lastWorkerCheck > 5_000) {
        lastWorkerCheck = Date.now();
        if (Date.now() - lastWorkerNotice > 30_000 && (await sink.workers()) === 0) {
          lastWorkerNotice = Date.now();
          execute.logger?.warn(
            { phase, waiting: enqueued - ended },
            'no worker is connected: nothing is sent until one starts (`evsync worker`, same REDIS_URL and DATABASE_URL)',
          );
        }
      }
      if (over || Date.now() - lastChange < stallMs) continue;
      if (!feeding && (await sink.outstanding()) === 0) {
        // Under a pass id of their own: a lost job's id may be taken by what is left of it.
        const missing = (
          await withoutResult(ledger, execute.runId, `${epoch}-${++requeued}`, phase, kinds)
        ).map((job) => (options.ledgerId === undefined ? job : { ...job, ledger: options.ledgerId }));
        if (missing.length === 0) {
          // Every intent has its result, some written where this pass could not count them.
          execute.logger?.info(
            { phase, counted: ended, enqueued },
            'phase done: every intent has its result',
          );
          ended = enqueued;
          break;
        }
        execute.logger?.warn({ phase, missing: missing.length }, 'queue lost jobs: enqueueing them again');
        await options.restoreSettings?.();
        await sink.enqueue(missing);
        lastChange = Date.now();
      }
    }
  } finally {
    stop = true;
  }
  if (enqueued > 0) {
    progress.phaseEnded(phase);
    execute.logger?.debug({ phase, count: enqueued }, 'phase done');
  }
  return { enqueued, ended, ...(fed === undefined ? {} : { stopped: fed }) };
}

/** The run's failures with these codes (`platform-down.ts`) that workers recorded. */
async function platformDownCount(
  ledger: DistributedExecutorOptions['ledger'],
  runId: string,
  codes: readonly string[],
): Promise<number> {
  return sum(sumByAction(await ledger.resultCounts(runId, { byWorkers: true, errorCodes: codes })));
}

/** Why the run stops after `count` platform-wide failures in a row, in the words of one of them. */
async function platformDownWhy(
  ledger: DistributedExecutorOptions['ledger'],
  runId: string,
  kinds: ReadonlySet<IntentKind>,
  count: number,
): Promise<string> {
  const [failure] = await ledger.results(runId, {
    kinds: [...kinds],
    actions: ['failed'],
    errorCodes: PLATFORM_DOWN_CODES,
    limit: 1,
  });
  const code = failure?.errorCode ?? PLATFORM_DOWN_CODES[0]!;
  return (
    platformDownReason(code, count, failure?.errorMessage ?? '') ??
    `${count} intents failed in a row (${code})`
  );
}

/**
 * The phase's jobs whose intents have no result yet, from the ledger in pages: once the
 * phase is enqueued whole, they are the ones the queue lost.
 */
async function withoutResult(
  ledger: DistributedExecutorOptions['ledger'],
  runId: string,
  epoch: string,
  phase: PhaseName,
  kinds: ReadonlySet<IntentKind>,
): Promise<IntentJob[]> {
  const missing: IntentJob[] = [];
  let afterSeq: number | undefined;
  for (;;) {
    const page = await ledger.pendingIntents(runId, {
      kinds: [...kinds],
      limit: 5000,
      ...(afterSeq === undefined ? {} : { afterSeq }),
    });
    for (const record of page)
      if (phaseOf(record) === phase)
        missing.push({ runId, epoch, phase, kind: record.kind, key: record.key });
    if (page.length < 5000) break;
    afterSeq = page[page.length - 1]?.seq;
  }
  return missing;
}

/** Those of the intents that have no result yet, in their order. */
async function stillPending(
  ledger: DistributedExecutorOptions['ledger'],
  runId: string,
  items: readonly PlannedIntent[],
): Promise<readonly PlannedIntent[]> {
  const kinds = [...new Set(items.map((item) => item.kind))];
  const pending = new Set<string>();
  for (const record of await ledger.pendingIntents(runId, { kinds, keys: items.map((item) => item.key) }))
    pending.add(`${record.kind}\u0000${record.key}`);
  return items.filter((item) => pending.has(`${item.kind}\u0000${item.key}`));
}

/** Ids the workers gave users and events in this run, for the deletes sent from here. */
async function refreshIds(
  ledger: DistributedExecutorOptions['ledger'],
  execute: ExecuteOptions,
): Promise<void> {
  for (const kind of PARENT_KINDS)
    for await (const page of ledger.idPages(kind))
      for (const [key, id] of page) execute.context.ids.set(kind, key, id);
}

function sumByAction(counts: RunResultCounts): ActionCounts {
  const total: ActionCounts = {};
  for (const ofKind of Object.values(counts))
    for (const [action, count] of Object.entries(ofKind ?? {}) as Array<[ResultAction, number]>)
      total[action] = (total[action] ?? 0) + count;
  return total;
}

function subtract(now: ActionCounts, base: ActionCounts): ActionCounts {
  const delta: ActionCounts = {};
  for (const [action, count] of Object.entries(now) as Array<[ResultAction, number]>)
    delta[action] = Math.max(0, count - (base[action] ?? 0));
  return delta;
}

function sum(counts: ActionCounts): number {
  return Object.values(counts).reduce((total, count) => total + (count ?? 0), 0);
}

/** The reason a detached run ends its first pass with (then a worker carries it on). */
export const DETACHED = 'detached: a worker sends the plan';

/**
 * The run option a detached run carries from its hand-over until a worker takes it: its
 * status is `interrupted` meanwhile, which `evsync runs` and `status` show as waiting.
 */
export const HANDED_TO_WORKERS = 'handedToWorkers';

/** A detached run no worker has taken yet (`HANDED_TO_WORKERS`). */
export function waitsForWorker(run: RunRecord): boolean {
  return run.status === 'interrupted' && run.options[HANDED_TO_WORKERS] === true;
}

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
