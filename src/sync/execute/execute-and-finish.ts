import type { PlannedIntent } from '../../model/planned-intent.js';
import { totalsOf, type IntentResultInput } from '../../model/result-records.js';
import type { RunStatus } from '../../model/run-record.js';
import { isParentKind, type ParentKind } from '../../model/intent.js';
import { DependencyGate, removalLookup } from '../phases/dependency-gate.js';
import { noteLeftOut } from '../phases/left-out-parents.js';
import { runHolds } from '../phases/key-holds.js';
import type { FlatParams } from '../../model/params.js';
import { IdCache } from '../processors/id-cache.js';
import {
  lastSentToDeletedAccountIn,
  syncedScheduleIn,
  type ProcessorContext,
} from '../processors/processor.js';
import { LastSentAhead } from '../processors/last-sent-ahead.js';
import type { EngineDeps } from './engine-deps.js';
import { executePlan } from './execute-plan.js';
import { unchangedResult } from './intent-result.js';
import type { RunSummary } from './run-summary.js';
import { createSendMarker } from './send-marks.js';
import type { ResultWriter } from '../../ledger/result-writer.js';
import type { PlanFeed } from './plan-feed.js';
import { reviewJob } from '../notify/review-job.js';
import { lostResults, skippedSplit, uncertainCheckInsOf } from './finished-counts.js';
import { abortOnFailure, keepAbortReason } from './abort-on-failure.js';
import { CallTally } from './call-tally.js';
import { afterFailedCheck, checkPlatform, needsPlatformCheck } from './platform-check.js';
import { runCalls } from '../../metrics/process-metrics.js';
import { SharedLinks, type LinkKind } from '../plan/link-pairs.js';

export interface RunWork {
  runId: string;
  /** Intents that need a call. */
  work: readonly PlannedIntent[];
  /** Intents recorded `unchanged` with no call. */
  unchanged: readonly PlannedIntent[];
  /** Results known before any call (invalid rows, duplicates…). */
  preResults?: readonly IntentResultInput[];
  /**
   * Results a resume decided from the ledger as it read it before the wait for an earlier
   * pass (a check-in's lost answer guessed from its send mark, one posted since…): written
   * after the run's work, and only for intents that still have no result then. Jobs of the
   * killed pass that workers held may have recorded the real outcome meanwhile, and that
   * wins over a guess.
   */
  unlessRecorded?: readonly IntentResultInput[];
  /**
   * Keys of users and events the run's source still has beyond `work` and `unchanged` (rows
   * that failed but whose keys were read): a mirror delete never removes their records.
   */
  keptKeys?: ReadonlyArray<{ kind: string; key: string }>;
  /**
   * Results of rows a `when:` condition left out earlier in this run (resume): links naming
   * the users and events they left out are skipped on purpose (`phases/left-out-parents.ts`).
   */
  leftOutRows?: ReadonlyArray<{ errorCode: string | null; params: FlatParams; message: string | null }>;
  /** Parents that ended earlier in this run (resume): their outcome decides their dependents. */
  settledParents?: ReadonlyArray<{ kind: ParentKind; key: string; ok: boolean; reason: string }>;
  /**
   * A plan made while it is sent (`runs/streamed-plan.ts`): given the run's result writer, id
   * cache and gate, it records and hands over the work chunk by chunk, and writes the results
   * that need no call itself. `work`, `unchanged` and `preResults` are then empty.
   */
  stream?: (run: RunContext) => StreamedWork;
}

/** What a streamed plan shares with the run that sends it. */
export interface RunContext {
  writer: ResultWriter;
  ids: IdCache;
  gate: DependencyGate;
  /** What the ledger last sent for a user: a streamed plan reads a chunk's updates ahead. */
  lastSent: LastSentAhead;
}

export interface StreamedWork {
  feed: PlanFeed;
  /** Whether the run's sources have this user or event (for mirror deletes of re-keyed records). */
  inSource: (kind: ParentKind, key: string) => boolean;
  /** The keys of links and schedules its sources have (for mirror deletes of re-keyed links). */
  liveLinks: (kind: LinkKind) => Iterable<string>;
}

/** Unchanged items of a plan made whole, written per id look-up of the ledger. */
const UNCHANGED_PAGE = 1000;

/**
 * Records what needs no call, sends the rest phase by phase, flushes the ledger and sets
 * the run's final status: `completed`, `interrupted` (signal) or `aborted`.
 */
export async function executeAndFinish(deps: EngineDeps, input: RunWork): Promise<RunSummary> {
  const { ledger } = deps;
  // Ids are fetched chunk by chunk; which keys the id map has is read only if many are new.
  const ids = new IdCache([], ledger);
  const gate = new DependencyGate(
    (dep) => ids.has(dep.kind, dep.clientId),
    removalLookup(ledger),
    await runHolds(ledger, input.runId),
  );
  for (const parent of input.settledParents ?? [])
    gate.settle({ kind: parent.kind, clientId: parent.key }, parent.ok, parent.reason);
  for (const row of input.leftOutRows ?? []) noteLeftOut(gate, row);

  // Big, infrequent batches: one statement per 1,000 results keeps the ledger's share of
  // the run small (the embedded ledger works in its own thread; PostgreSQL in its server).
  // Once a batch is in the ledger, the ids it carries may leave the id cache's window.
  const writer = ledger.resultWriter({
    ...(deps.resultWriter ?? { batchSize: 1000, flushIntervalMs: 1000 }),
    onRecorded: (results) => ids.recorded(results),
  });
  // The calls this process makes for the run, per second and outcome (the run page's chart).
  const calls = new CallTally(ledger, { defaultRunId: input.runId, logger: deps.logger });
  let stopped: RunSummary['stopped'];
  let reason: string | undefined;
  let nextStep: string | undefined;
  let failure: { error: unknown } | undefined;
  try {
    for (const result of input.preResults ?? []) {
      await writer.write(result);
      noteLeftOut(gate, { ...result, message: result.errorMessage ?? null });
    }
    for (let start = 0; start < input.unchanged.length; start += UNCHANGED_PAGE) {
      const page = input.unchanged.slice(start, start + UNCHANGED_PAGE);
      await ids.prefetch(page);
      for (const item of page) {
        await writer.write(unchangedResult(input.runId, item, await ids.get(item.kind, item.key)));
        if (isParentKind(item.kind))
          await gate.passed({ kind: item.kind, key: item.key, aliases: item.aliases });
      }
    }
    const lastSent = new LastSentAhead(ledger);
    const streamed = input.stream?.({ writer, ids, gate, lastSent });
    const snapshots = idSnapshots(ids);
    const inSource = streamed?.inSource ?? inSourceOf(input);
    const execute = deps.executor ?? executePlan;
    // Calls are tagged with their run only where runs share the process (`severalRuns`);
    // alone, the tally above counts the calls of no run for this one.
    const send = () =>
      execute({
        runId: input.runId,
        work: input.work,
        ...(streamed ? { feed: streamed.feed } : {}),
        context: {
          platform: deps.platform,
          ids,
          markSendStarted: createSendMarker(ledger, input.runId),
          sharedWith: sharedWith(snapshots, inSource),
          lastSent: lastSent.lastSent,
          syncedSchedule: syncedScheduleIn(ledger),
          lastSentBeforeRemoval: lastSent.lastSentBeforeRemoval,
          lastSentToDeletedAccount: lastSentToDeletedAccountIn(ledger),
          inSource,
          sharedLink: sharedLink(snapshots, streamed?.liveLinks ?? ((kind) => liveLinksOf(input, kind))),
        },
        gate,
        writer,
        concurrency: deps.concurrency,
        ...(deps.signal ? { signal: deps.signal } : {}),
        ...(deps.progress ? { progress: deps.progress } : {}),
        ...(deps.logger ? { logger: deps.logger } : {}),
        ...(deps.queueFactory ? { queueFactory: deps.queueFactory } : {}),
        ...(deps.platformDownLimit ? { platformDownLimit: deps.platformDownLimit } : {}),
      });
    const outcome = await (deps.severalRuns ? runCalls.run(input.runId, send) : send());
    stopped = outcome.stopped;
    reason = outcome.reason;
    nextStep = outcome.nextStep;
    await writeUnlessRecorded(deps.ledger, writer, input.runId, input.unlessRecorded ?? []);
  } catch (error) {
    failure = { error };
  } finally {
    if (stopped !== undefined || failure !== undefined) calls.add(input.runId, Date.now(), 'stop');
    await calls.close();
    deps.progress?.close();
    // After a failure, that is the error to report: a writer that cannot flush either adds nothing.
    await writer.close().catch((closing: unknown) => {
      if (failure === undefined) throw closing;
    });
  }
  if (failure !== undefined) {
    // A source that breaks while a streamed plan reads it: `aborted`, said so everywhere.
    const aborted = await abortOnFailure(ledger, input.runId, failure.error);
    await reviewRunsJob(deps, input.runId);
    throw aborted;
  }
  const counts = await ledger.resultCounts(input.runId);
  if (stopped === undefined && !deps.signal?.aborted && needsPlatformCheck(counts)) {
    const failed = await checkPlatform(deps.platform, deps.logger);
    if (failed !== undefined) {
      stopped = 'aborted';
      reason = failed.reason;
      nextStep = afterFailedCheck(counts);
      await ledger.mergeRunOptions(input.runId, { abortCode: failed.code, nextStep });
    }
  }
  if (stopped === 'aborted' && reason !== undefined)
    reason = await keepAbortReason(ledger, input.runId, reason);
  const status: RunStatus = stopped ?? 'completed';
  // The counts read above are final: nothing is recorded after them, so the run keeps them
  // rather than counting its results again (a second scan of them at 200,000 users).
  const totals = totalsOf(counts);
  const lostByAction = await lostResults(ledger, input.runId, counts);
  const lost = Object.values(lostByAction).reduce((sum, n) => sum + (n ?? 0), 0);
  const run = await ledger.finishRun(input.runId, status, totals, lost);
  await reviewRunsJob(deps, run.id, run.jobName);
  const uncertainCheckIns = await uncertainCheckInsOf(ledger, input.runId, counts);
  const skipped = await skippedSplit(ledger, input.runId, counts, lostByAction);
  return {
    run,
    counts,
    totals,
    rowsLost: lost > 0,
    ...(skipped ? { skipped } : {}),
    ...(uncertainCheckIns ? { uncertainCheckIns } : {}),
    ...(stopped ? { stopped } : {}),
    ...(reason ? { reason } : {}),
    ...(nextStep ? { nextStep } : {}),
  };
}

/**
 * Tells the job's `notify:` channels if the run changed how the job stands
 * (docs/notifications.md); a failure to tell never changes the run's outcome.
 */
async function reviewRunsJob(deps: EngineDeps, runId: string, jobName?: string): Promise<void> {
  const name = jobName ?? (await deps.ledger.getRun(runId).catch(() => undefined))?.jobName;
  // In the background: the run's end releases the job's lock without waiting for a receiver.
  if (name !== undefined)
    await reviewJob({ ledger: deps.ledger, logger: deps.logger }, name, { background: true });
}

/** Users and events this run's source has: everything planned but deletes, and kept keys. */
function inSourceOf(input: RunWork): StreamedWork['inSource'] {
  const keys = new Set<string>();
  const add = (kind: string, key: string): void => {
    if (isParentKind(kind)) keys.add(`${kind}\u0000${key}`);
  };
  for (const item of [...input.work, ...input.unchanged])
    if (item.plannedAction !== 'delete' && item.plannedAction !== 'retire') add(item.kind, item.key);
  for (const parent of input.settledParents ?? []) if (parent.ok) add(parent.kind, parent.key);
  for (const kept of input.keptKeys ?? []) add(kept.kind, kept.key);
  return (kind, key) => keys.has(`${kind}\u0000${key}`);
}

/** Links and schedules this run's source has: everything planned but deletes, and kept keys. */
function* liveLinksOf(input: RunWork, kind: LinkKind): Iterable<string> {
  for (const item of [...input.work, ...input.unchanged])
    if (item.kind === kind && item.plannedAction !== 'delete' && item.plannedAction !== 'retire')
      yield item.key;
  for (const kept of input.keptKeys ?? []) if (kept.kind === kind) yield kept.key;
}

/**
 * The key of this run's source that names the same platform records as the link `key`.
 * Indexed on the first call: mirror deletes of links come after the users and events
 * phases, when every source key has its id (one that found its user by e-mail in this run too).
 */
function sharedLink(
  snapshots: IdSnapshots,
  liveLinks: StreamedWork['liveLinks'],
): ProcessorContext['sharedLink'] {
  let links: Promise<SharedLinks> | undefined;
  return async (kind, key) => {
    links ??= Promise.all([snapshots('user'), snapshots('event')]).then(
      ([users, events]) =>
        new SharedLinks(liveLinks, (of, ofKey) => (of === 'user' ? users : events).get(ofKey)),
    );
    return (await links).sharedWith(kind, key);
  };
}

/**
 * The whole id map of users and events as the run sees it, read once per kind when its
 * mirror deletes first ask: the id cache holds only a window of it (`IdCache.snapshot`).
 */
type IdSnapshots = (kind: ParentKind) => Promise<ReadonlyMap<string, number>>;

function idSnapshots(ids: IdCache): IdSnapshots {
  const taken = new Map<ParentKind, Promise<ReadonlyMap<string, number>>>();
  return (kind) => {
    let snapshot = taken.get(kind);
    if (!snapshot) taken.set(kind, (snapshot = ids.snapshot(kind)));
    return snapshot;
  };
}

/**
 * The key of this run's source that maps to the same platform record as `key`. Indexed on
 * the first call: deletes of users and events come in the last phase, when every source
 * key has its id (one that found its user by e-mail in this run too). The id map is walked,
 * not the source: a streamed plan keeps only hashes of the source's keys.
 */
function sharedWith(
  snapshots: IdSnapshots,
  inSource: StreamedWork['inSource'],
): ProcessorContext['sharedWith'] {
  const byId = new Map<ParentKind, Promise<Map<number, string>>>();
  return async (kind, key, id) => {
    let index = byId.get(kind);
    if (!index)
      byId.set(
        kind,
        (index = snapshots(kind).then((ids) => {
          const made = new Map<number, string>();
          for (const [sourceKey, platformId] of ids)
            if (!made.has(platformId) && inSource(kind, sourceKey)) made.set(platformId, sourceKey);
          return made;
        })),
      );
    const other = (await index).get(id);
    return other === key ? undefined : other;
  };
}

/** See `RunWork.unlessRecorded`: the writer is flushed first, so the ledger has all of this run's. */
async function writeUnlessRecorded(
  ledger: EngineDeps['ledger'],
  writer: ResultWriter,
  runId: string,
  results: readonly IntentResultInput[],
): Promise<void> {
  if (results.length === 0) return;
  await writer.flush();
  const recorded = new Set<string>();
  const keysOf = new Map<IntentResultInput['kind'], string[]>();
  for (const result of results) {
    const keys = keysOf.get(result.kind);
    if (keys === undefined) keysOf.set(result.kind, [result.key]);
    else keys.push(result.key);
  }
  for (const [kind, keys] of keysOf) {
    for (let start = 0; start < keys.length; start += 1000) {
      const chunk = keys.slice(start, start + 1000);
      for (const found of await ledger.results(runId, { kinds: [kind], keys: chunk }))
        recorded.add(`${kind}/${found.key}`);
    }
  }
  for (const result of results) {
    if (!recorded.has(`${result.kind}/${result.key}`)) await writer.write(result);
  }
}
