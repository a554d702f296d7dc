import { CODE } from '../../errors/codes.js';
import type { IntentResultInput } from '../../model/result-records.js';
import type { RunRecord } from '../../model/run-record.js';
import { isErasureMarker } from '../../model/erasure.js';
import { erasedResult } from '../collect/erasures.js';
import type { RowResult } from '../plan/sync-plan.js';
import { isParentKind, type IntentKind, type ParentKind } from '../../model/intent.js';
import type { PlannedIntent, PlannedIntentRecord } from '../../model/planned-intent.js';
import { noteLeftOut } from '../phases/left-out-parents.js';
import { PHASE_KINDS, PHASES, phaseOf, type PhaseName } from '../phases/sync-phases.js';
import { guardCheckIns } from '../plan/lost-check-ins.js';
import type { LinkKind } from '../plan/link-pairs.js';
import type { EngineDeps } from '../execute/engine-deps.js';
import type { RunContext, StreamedWork } from '../execute/execute-and-finish.js';
import { isSuccess, rowResult, unchangedResult } from '../execute/intent-result.js';
import type { PhaseWork } from '../execute/plan-feed.js';
import { leaveHandledLater } from './handled-later.js';
import { leaveToLaterRun } from './superseded.js';
import { pagesAfterSeq, pendingBySpans, type SeqPage } from './pending-pages.js';
import { restoreIntents, type SourceReadAgain } from './restore-params.js';

/** Pending intents read from the ledger per statement, and handed to the queue per chunk. */
export const RESUME_PAGE = 1_000;

/** What a resume has counted as it pages through the run's pending intents. */
export interface ResumeTally {
  /** Pending intents read. */
  pending: number;
  /** Results written instead of a call: not sendable, synced since, held back, lost in the crash. */
  cutOff: number;
}

/**
 * A resume's work as a stream (docs/sync-engine.md, "Memory"): each phase pages through
 * the run's pending intents in `seq` order, and asks the ledger, per page, for what that
 * page needs: the keys later runs handled (`handledLaterOf`), the check-ins posted since,
 * and, for dependents, their parents' outcomes in this run. What needs no call gets its
 * result at once; the rest is handed to the executor a page at a time. Nothing of the run
 * is held whole: per key, only a parent that failed stays in the gate, as in `run`.
 */
export function resumeStream(
  deps: EngineDeps,
  run: RunRecord,
  /** A check-in whose POST had started when the run died: its result instead of a call. */
  answerLost: (item: PlannedIntent) => IntentResultInput,
  options: ResumeStreamOptions = {},
): { stream: (context: RunContext) => StreamedWork; tally: ResumeTally } {
  const tally: ResumeTally = { pending: 0, cutOff: 0 };
  const stream = (context: RunContext): StreamedWork => {
    const resumed = new ResumedRun(deps, run, context, answerLost, tally, options);
    return {
      feed: resumed.phases(),
      inSource: (kind, key) => resumed.inSource(kind, key),
      liveLinks: (kind) => resumed.liveLinks(kind),
    };
  };
  return { stream, tally };
}

export interface ResumeStreamOptions {
  /**
   * Whether a page's check-ins are held back as a plan holds them (posted since, or their
   * answer lost by another run). A retry's run has decided that already, against the run
   * it retries, and sends what it recorded. @defaultValue true
   */
  guardCheckIns?: boolean;
  /**
   * A later run of the job that read the sources whole and completed (`supersededBy`):
   * every pending intent is skipped, none sent, but a check-in whose POST had started.
   */
  supersededBy?: RunRecord;
}

class ResumedRun {
  /** The run's planned users and events but deletes: read only when a mirror delete is pending. */
  private planned: Set<string> | undefined;
  /** The run's planned links but deletes, per kind: read only when a link delete is pending. */
  private readonly links = new Map<LinkKind, string[]>();
  /** The job's source read again once, for secret params (see `restoreIntents`). */
  private readonly sourcesRead = new Map<string, Promise<SourceReadAgain>>();

  constructor(
    private readonly deps: EngineDeps,
    private readonly run: RunRecord,
    private readonly context: RunContext,
    private readonly answerLost: (item: PlannedIntent) => IntentResultInput,
    private readonly tally: ResumeTally,
    private readonly options: ResumeStreamOptions,
  ) {}

  async *phases(): AsyncGenerator<PhaseWork> {
    await this.noteLeftOutRows();
    // One count per phase up front: phases with nothing pending are not read at all.
    const pending = new Map<PhaseName, number>();
    for (const { kind, plannedAction, count } of await this.deps.ledger.countPending(this.run.id)) {
      const phase = phaseOf({ kind, plannedAction });
      pending.set(phase, (pending.get(phase) ?? 0) + count);
    }
    for (const phase of PHASES) {
      const total = pending.get(phase) ?? 0;
      if (total > 0) yield { phase, chunks: this.pages(phase), total: () => total };
    }
  }

  inSource(kind: ParentKind, key: string): boolean {
    return this.planned?.has(`${kind}\u0000${key}`) ?? false;
  }

  liveLinks(kind: LinkKind): Iterable<string> {
    return this.links.get(kind) ?? [];
  }

  /**
   * Rows a `when:` condition left out earlier in this run: links naming what they left out
   * are skipped on purpose. The gate keeps each such parent's key and reason.
   */
  private async noteLeftOutRows(): Promise<void> {
    for await (const result of this.deps.ledger.eachResult(this.run.id, {
      actions: ['skipped'],
      errorCodes: [CODE.EVSYNC_ROW_SKIPPED],
    }))
      noteLeftOut(this.context.gate, {
        errorCode: result.errorCode,
        params: result.params,
        message: result.errorMessage,
      });
  }

  /** A phase's pending intents, page by page, made ready to send. */
  private async *pages(phase: PhaseName): AsyncGenerator<PlannedIntent[]> {
    const { ledger } = this.deps;
    const span = await this.planSpan();
    if (span === undefined) return;
    // The results this resume wrote so far (the parents' phases) are what the ledger answers from.
    await this.context.writer.flush();
    await this.beforePhase(phase);
    for await (const page of pendingBySpans(ledger, this.run.id, span, PHASE_KINDS[phase], RESUME_PAGE)) {
      const mine = page.filter((record) => phaseOf(record) === phase);
      if (mine.length === 0) continue;
      this.tally.pending += mine.length;
      const items = await this.ready(mine);
      if (items.length > 0) yield items;
    }
  }

  private span: Promise<{ first: number; last: number } | undefined> | undefined;

  /** The run's plan is recorded before a resume, and does not grow while it runs. */
  private planSpan(): Promise<{ first: number; last: number } | undefined> {
    this.span ??= this.deps.ledger.planSpan(this.run.id);
    return this.span;
  }

  /** Mirror deletes compare with the run's source: its planned keys, read when one is pending. */
  private async beforePhase(phase: PhaseName): Promise<void> {
    if (phase === 'removals' && this.planned === undefined) {
      const planned = new Set<string>();
      for await (const record of this.plannedOf(['user', 'event']))
        if (record.plannedAction !== 'delete' && record.plannedAction !== 'retire')
          planned.add(`${record.kind}\u0000${record.key}`);
      this.planned = planned;
    }
    if (phase === 'unlinks' && this.links.size === 0) {
      for await (const record of this.plannedOf(PHASE_KINDS.unlinks)) {
        if (record.plannedAction === 'delete' || record.plannedAction === 'retire') continue;
        const kind = record.kind as LinkKind;
        const keys = this.links.get(kind);
        if (keys === undefined) this.links.set(kind, [record.key]);
        else keys.push(record.key);
      }
    }
  }

  /** Every planned intent of these kinds, with a result or without, page by page. */
  private async *plannedOf(kinds: readonly IntentKind[]): AsyncGenerator<PlannedIntentRecord> {
    const { ledger } = this.deps;
    const runId = this.run.id;
    for (const read of [
      (page: SeqPage) => ledger.pendingIntents(runId, { kinds, ...page }),
      (page: SeqPage) => ledger.plannedByResult(runId, { kinds, ...page }),
    ])
      for await (const page of pagesAfterSeq(read, RESUME_PAGE)) yield* page;
  }

  /**
   * One page made ready: secrets read again, what later runs handled and the check-ins
   * held back get their results, so does a check-in whose POST had started; unchanged
   * intents are recorded; dependents learn their parents' outcomes. The rest is returned.
   */
  private async ready(records: readonly PlannedIntentRecord[]): Promise<PlannedIntent[]> {
    const { ledger } = this.deps;
    const { writer, ids, gate } = this.context;
    const runId = this.run.id;
    const readBack = await restoreIntents({ ...this.deps, sourcesRead: this.sourcesRead }, this.run, records);
    const marked = new Set<PlannedIntent>();
    const restored: PlannedIntent[] = [];
    // A person forgotten since the run planned them (`evsync forget`) stands under a marker,
    // their params gone: skipped as erased, never sent (docs/privacy.md).
    const erased: RowResult[] = [];
    for (const record of records) {
      const item = readBack.items.get(record);
      if (item === undefined) continue;
      if (isErasureMarker(item.key)) {
        erased.push(erasedResult(item.kind, item.key, item.origin));
        continue;
      }
      restored.push(item);
      if (record.sendStartedAt !== null) marked.add(item);
    }
    const handled = await leaveHandledLater(ledger, runId, restored);
    const later = this.options.supersededBy;
    const left =
      later === undefined ? undefined : leaveToLaterRun(handled.items, (item) => marked.has(item), later);
    const fresh =
      left === undefined ? handled : { items: left.items, skipped: [...handled.skipped, ...left.skipped] };
    // Check-ins have nothing to find them by: one posted since by another run, or whose answer
    // another run lost, is held back as a plan would. One this run marked lost its answer here.
    const guarded =
      this.options.guardCheckIns === false
        ? { work: fresh.items, held: [] }
        : await guardCheckIns(ledger, fresh.items, runId);
    const cutOff: IntentResultInput[] = [
      ...readBack.unsendable,
      ...erased,
      ...fresh.skipped,
      ...guarded.held,
    ].map((row) => rowResult(runId, row));
    const work: PlannedIntent[] = [];
    await ids.prefetch(guarded.work.filter((item) => item.plannedAction === 'unchanged'));
    for (const item of guarded.work) {
      if (marked.has(item)) cutOff.push(this.answerLost(item));
      else if (item.plannedAction !== 'unchanged') work.push(item);
      else {
        await writer.write(unchangedResult(runId, item, await ids.get(item.kind, item.key)));
        if (isParentKind(item.kind))
          await gate.passed({ kind: item.kind, key: item.key, aliases: item.aliases });
      }
    }
    await this.writeUnlessRecorded(cutOff);
    await this.settleParentsOf(work);
    return work;
  }

  /**
   * Results decided from the ledger as read (a guess such as a check-in's lost answer): in
   * distributed mode a worker of the killed pass may have recorded the real outcome since,
   * and that one stays. Asked of the ledger for this page's keys only.
   */
  private async writeUnlessRecorded(results: readonly IntentResultInput[]): Promise<void> {
    if (results.length === 0) return;
    this.tally.cutOff += results.length;
    const { writer } = this.context;
    const recorded = new Set<string>();
    for (const [kind, keys] of byKind(results)) {
      for (const key of (await this.deps.ledger.outcomesOf(this.run.id, kind, keys)).keys())
        recorded.add(`${kind}\u0000${key}`);
    }
    for (const result of results)
      if (!recorded.has(`${result.kind}\u0000${result.key}`)) await writer.write(result);
  }

  /**
   * The outcomes in this run of the parents this page's dependents name, from the ledger:
   * a parent that failed in the killed pass keeps its dependents back, as one failed in this
   * process does. A success the id map knows is forgotten by the gate at once.
   */
  private async settleParentsOf(items: readonly PlannedIntent[]): Promise<void> {
    const parents = new Map<ParentKind, Set<string>>();
    for (const item of items)
      for (const dep of item.dependsOn) {
        if (!isParentKind(dep.kind)) continue;
        let keys = parents.get(dep.kind);
        if (keys === undefined) parents.set(dep.kind, (keys = new Set()));
        keys.add(dep.clientId);
      }
    for (const [kind, keys] of parents) {
      const found = await this.deps.ledger.outcomesOf(this.run.id, kind, [...keys]);
      for (const [key, outcome] of found)
        this.context.gate.settle(
          { kind, clientId: key },
          isSuccess(outcome.action),
          outcome.errorMessage ?? outcome.action,
        );
    }
  }
}

function byKind(results: readonly IntentResultInput[]): Map<IntentKind, string[]> {
  const keysOf = new Map<IntentKind, string[]>();
  for (const result of results) {
    const keys = keysOf.get(result.kind);
    if (keys === undefined) keysOf.set(result.kind, [result.key]);
    else keys.push(result.key);
  }
  return keysOf;
}
