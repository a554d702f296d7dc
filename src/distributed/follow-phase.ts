import { setTimeout as sleep } from 'node:timers/promises';
import type { IntentKind } from '../model/intent.js';
import type { PlannedIntent } from '../model/planned-intent.js';
import type { ActionCounts, ResultAction, RunResultCounts } from '../model/result-records.js';
import type { ExecuteOptions } from '../sync/execute/execute-plan.js';
import type { PhaseWork } from '../sync/execute/plan-feed.js';
import {
  CERTAINLY_DOWN_CODES,
  PLATFORM_DOWN_CODES,
  platformDownLimit,
  platformDownReason,
} from '../sync/execute/platform-down.js';
import { phaseOf, type PhaseName } from '../sync/phases/sync-phases.js';
import { silentProgress } from '../sync/progress/progress-sink.js';
import type { DistributedExecutorOptions, IntentJobSink } from './distributed-executor.js';
import { DownCountStreak } from './down-count-streak.js';
import type { IntentJob } from './intent-job.js';

/**
 * How long a pass waits for the jobs of an earlier pass of the run that workers still
 * hold: a job whose worker died goes back to the queue after its lock (10 s) and the next
 * stalled-job check (5 s), and is then withdrawn.
 */
const EARLIER_PASS_WAIT_MS = 30_000;

/**
 * Waits up to `EARLIER_PASS_WAIT_MS` for the run's jobs that workers hold to end (recorded),
 * or until `signal` aborts; answers how many are still held.
 */
export async function heldJobsEnded(
  sink: IntentJobSink,
  runId: string,
  signal?: AbortSignal,
): Promise<number> {
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
export async function followPhase(
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
  /** The chunk the feed waits to enqueue (too many outstanding): everything before it is enqueued. */
  let held: readonly PlannedIntent[] | undefined;
  let feeding = true;
  let fed: unknown;
  let stop = false;
  const enqueueing = (async () => {
    for await (const chunk of work.chunks) {
      held = chunk;
      while (enqueued - ended >= ENQUEUED_AHEAD && !stop) await sleep(pollMs);
      held = undefined;
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
      } else {
        progress.phaseGrew?.(phase, work.total(), work.growing?.() ?? false);
        // `evsync status` shows the phase's total as it grows, before any worker records a result.
        await note(ended);
      }
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
  // The first look comes once workers have read the lanes again (`LaneWorkers`, every second):
  // a lane this run noted moments ago is not yet served by the workers that hold its key.
  let lastWorkerCheck = Date.now() + 1_000;
  let unservedSince: number | undefined;
  const unservedMs = options.unservedMs ?? 10_000;
  const halt = async (laneServed = true): Promise<void> => {
    stop = true;
    await enqueueing;
    // Jobs a worker has taken finish there and are recorded, before the run's counts are
    // taken (as the inline engine finishes what is in flight); the rest stay pending.
    await sink.withdrawRun(execute.runId);
    // A lane no worker serves: what it holds active is a dead worker's, which no one finishes
    // (the stalled-job check runs in the lane's workers); its resume sends those again.
    if (!laneServed) return;
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
      if (Date.now() - lastWorkerCheck > 1_000) {
        lastWorkerCheck = Date.now();
        const unserved = await sink.unserved?.();
        if (unserved === undefined) unservedSince = undefined;
        else if (unservedSince === undefined) {
          unservedSince = Date.now();
          execute.logger?.warn(
            { phase, waiting: enqueued - ended },
            `${unserved.reason}: nothing is sent to it; the run stops in ${Math.round(unservedMs / 1000)} s unless a worker takes it`,
          );
        } else if (Date.now() - unservedSince >= unservedMs) {
          await halt(false);
          // The run's summary adds what to do next (`evsync resume RUN`): said once.
          const abort = `${unserved.reason}. ${unserved.advice}`;
          // What its notice names as the cause (`notice-cause.ts`).
          await ledger.mergeRunOptions(execute.runId, { abortCode: unserved.code }).catch(() => undefined);
          execute.logger?.error(
            { phase, code: unserved.code },
            `${abort}, then finish the run with: evsync resume ${execute.runId}`,
          );
          return { enqueued, ended, abort };
        }
        if (
          unserved === undefined &&
          Date.now() - lastWorkerNotice > 30_000 &&
          (await sink.workers()) === 0
        ) {
          lastWorkerNotice = Date.now();
          execute.logger?.warn(
            { phase, waiting: enqueued - ended },
            'no worker is connected: nothing is sent until one starts (`evsync worker`, same REDIS_URL and DATABASE_URL)',
          );
        }
      }
      if (over || Date.now() - lastChange < stallMs) continue;
      // Nothing ended for a while and the queue holds nothing: Redis lost the jobs. While the
      // feed waits for fewer than ENQUEUED_AHEAD to be outstanding (which lost jobs never
      // give), only the intents planned before the chunk it holds are looked for: they are
      // the ones it enqueued; the rest it enqueues itself.
      const waiting = held;
      if ((!feeding || waiting !== undefined) && (await sink.outstanding()) === 0) {
        const through = waiting === undefined ? undefined : await seqBefore(ledger, execute.runId, waiting);
        if (feeding && through === undefined) {
          lastChange = Date.now();
          continue;
        }
        // Under a pass id of their own: a lost job's id may be taken by what is left of it.
        const missing = (
          await withoutResult(ledger, execute.runId, `${epoch}-${++requeued}`, phase, kinds, through)
        ).map((job) => (options.ledgerId === undefined ? job : { ...job, ledger: options.ledgerId }));
        if (missing.length === 0 && feeding) {
          // Nothing lost: the workers are slow, not the queue.
          lastChange = Date.now();
          continue;
        }
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
 * The phase's jobs whose intents have no result yet, from the ledger in pages, up to `seq`
 * `through` when given (what the feed has enqueued so far): the ones the queue lost.
 */
async function withoutResult(
  ledger: DistributedExecutorOptions['ledger'],
  runId: string,
  epoch: string,
  phase: PhaseName,
  kinds: ReadonlySet<IntentKind>,
  through?: number,
): Promise<IntentJob[]> {
  const missing: IntentJob[] = [];
  // A span of `seq` is read by the primary key from the run's first intent on.
  let afterSeq: number | undefined =
    through === undefined ? undefined : ((await ledger.planSpan(runId))?.first ?? 1) - 1;
  for (;;) {
    const page = await ledger.pendingIntents(runId, {
      kinds: [...kinds],
      limit: 5000,
      ...(afterSeq === undefined ? {} : { afterSeq }),
      ...(through === undefined ? {} : { throughSeq: through }),
    });
    for (const record of page)
      if (phaseOf(record) === phase)
        missing.push({ runId, epoch, phase, kind: record.kind, key: record.key });
    if (page.length < 5000) break;
    afterSeq = page[page.length - 1]?.seq;
  }
  return missing;
}

/**
 * The `seq` just before the first of `chunk`'s intents in the recorded plan (a plan is
 * recorded, and handed over, in `seq` order), or undefined when none of them is pending.
 */
async function seqBefore(
  ledger: DistributedExecutorOptions['ledger'],
  runId: string,
  chunk: readonly PlannedIntent[],
): Promise<number | undefined> {
  const kinds = [...new Set(chunk.map((item) => item.kind))];
  const records = await ledger.pendingIntents(runId, { kinds, keys: chunk.map((item) => item.key) });
  if (records.length === 0) return undefined;
  return Math.min(...records.map((record) => record.seq)) - 1;
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
