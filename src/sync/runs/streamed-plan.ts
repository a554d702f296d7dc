import { messageOf } from '../../errors/evsync-error.js';
import { sharedAccountsOf } from './one-account.js';
import { noteLeftOut } from '../phases/left-out-parents.js';
import { keysHeldBy } from '../phases/key-holds.js';
import type { Intent } from '../../model/intent.js';
import { isParentKind } from '../../model/intent.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import type { RunRecord } from '../../model/run-record.js';
import { streamCollected } from '../collect/collect-intents.js';
import { Erasures } from '../collect/erasures.js';
import { STEP_ROWS_OPTION, type StepRows } from '../collect/step-rows.js';
import type { EngineDeps } from '../execute/engine-deps.js';
import type { RunContext, StreamedWork } from '../execute/execute-and-finish.js';
import { PLAN_NOT_RECORDED_STEP, withoutFullStop } from '../execute/execute-plan.js';
import { rowResult } from '../execute/intent-result.js';
import { PlanStopped, type PhaseWork } from '../execute/plan-feed.js';
import type { LoadedJob } from '../job-file.js';
import { DeleteThresholdError } from '../plan/delete-threshold-error.js';
import { PHASE_KINDS, PHASES, phaseOf, type PhaseName } from '../phases/sync-phases.js';
import type { PlanSummary } from '../plan/plan-summary.js';
import { lostPicks } from '../plan/partial-schedules.js';
import { StreamPlanner, type StreamPlanInput } from '../plan/stream-planner.js';
import type { RowResult } from '../plan/sync-plan.js';
import { pendingBySpans } from './pending-pages.js';
import { PlanQueue } from './plan-queue.js';
import { ChunkBeingRead, PLAN_CHUNK } from './plan-chunks.js';
import { PublishSchedule } from './publish-schedule.js';
import { restoreIntents } from './restore-params.js';

/** Rows read between two turns of the event loop while a chunk is planned (`readAndPlan`). */
const ROWS_PER_TURN = 50;

/** A turn of the event loop: what is ready to be read from sockets (the ledger's answers) is. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Writes of unchanged keys a streamed plan leaves in flight at most (about 1,000 keys each). */
const UNCHANGED_IN_FLIGHT = 8;

/** Planned intents read back from the ledger per statement, for the phases after the first. */
const PAGE = 1_000;

export interface StreamedPlanInput {
  job: LoadedJob;
  run: RunRecord;
  plan: StreamPlanInput;
}

/**
 * A run's plan made while it is sent (docs/sync-engine.md, "Memory"): the sources are read
 * chunk by chunk (the first of 100 rows, then 1,000); each chunk is diffed against the
 * ledger's hashes of its keys, recorded, and its users handed to the queue at once; what
 * needs no call gets its result. Later phases wait in the ledger: once the users have
 * drained, each is read back page by page. Mirror deletes are planned when every source is
 * read, and their threshold checked before any of them is sent. No intent is kept once
 * sent: per key the run keeps an entry of the id cache and a slot of the planner's key
 * registry (the dependency gate keeps failures only).
 */
export function streamedPlan(
  deps: EngineDeps,
  input: StreamedPlanInput,
): {
  stream: (run: RunContext) => StreamedWork;
  summary: () => PlanSummary | undefined;
  /** The threshold error that stopped the run before its deletes, if one did. */
  refused: () => DeleteThresholdError | undefined;
} {
  let planner: StreamPlanner | undefined;
  const stream = (context: RunContext): StreamedWork => {
    const made = new StreamPlanner(deps.ledger, input.plan, context.ids);
    planner = made;
    return {
      feed: new StreamedRun(deps, input, made, context).phases(),
      inSource: (kind, key) => made.has(kind, key),
      liveLinks: (kind) => made.liveLinks(kind),
    };
  };
  return { stream, summary: () => planner?.summary(), refused: () => planner?.refused };
}

/** One run's streamed plan: what it reads, records and hands over, phase by phase. */
class StreamedRun {
  /** Work of the phases after the first, counted as it is recorded (their progress totals). */
  private readonly later = new Map<PhaseName, number>();
  private users = 0;
  /** The rows each step's source yielded, as it is read to its end. */
  private readonly stepRows: StepRows[] = [];
  /** Until the sources are read to their end, the users phase may grow. */
  private reading = true;
  /** Writes of unchanged keys in flight (`recordUnchanged`). */
  private readonly unchangedWrites: Array<Promise<void>> = [];

  constructor(
    private readonly deps: EngineDeps,
    private readonly input: StreamedPlanInput,
    private readonly planner: StreamPlanner,
    private readonly context: RunContext,
  ) {}

  *phases(): Generator<PhaseWork> {
    yield {
      phase: 'users',
      chunks: this.readAndPlan(),
      total: () => this.users,
      growing: () => this.reading,
    };
    for (const phase of PHASES) {
      if (phase === 'users') continue;
      const total = this.later.get(phase) ?? 0;
      if (total > 0) yield { phase, chunks: this.readBack(phase), total: () => total };
    }
  }

  /**
   * The streamed part: reads, plans and records the sources; yields the users to send.
   *
   * A chunk is planned while the next is read: planning a chunk is mostly waiting for the
   * ledger (its changed keys' hashes and synced param names, its planned intents recorded:
   * a round trip each, 1.9 s and 1.0 s of a 200,000-user night that changed 1 %), and
   * reading is mostly CPU, so the two overlap. Chunks are still planned one at a time and in
   * source order: a chunk's plan waits for the one before, whose users go first.
   *
   * While a chunk is planned the reader makes way every {@link ROWS_PER_TURN} rows: a
   * source's rows come as microtasks, 64 KB of a file at a time, and the ledger's answers
   * are taken only between them, so each round trip of the plan waited for the next read
   * of the file (some 400 rows, 10 ms): the plan, not the reading, then set the pace.
   *
   * Once a plan has started to read a kind's synced hashes, the reader goes on for
   * `READ_AHEAD_CHUNKS` chunks, their plans queued behind it, before it waits for them
   * and publishes what was read; and a chunk counts only the intents the mapping did not
   * find synced ({@link ChunkBeingRead}, which `evsync plan` cuts its chunks by too).
   */
  private async *readAndPlan(): AsyncGenerator<PlannedIntent[]> {
    const reading = new ChunkBeingRead();
    const source = streamCollected(this.input.job, {
      vendor: this.deps.platform.vendor,
      erasures: await Erasures.load(this.deps.ledger, this.deps.platform.vendor),
      onMerge: (report) => this.planner.mergedPeople(report),
      onIdentity: (lines) => this.planner.identity(lines),
      ...(this.deps.logger ? { logger: this.deps.logger } : {}),
      onStepRead: (read) => void this.stepRows.push(read),
      syncedHash: this.planner.syncedHash,
      sharedAccounts: sharedAccountsOf(this.deps.ledger, this.deps.platform),
    })[Symbol.asyncIterator]();
    /** The chunks before, planned one after another while this one is read, oldest first. */
    const planning = new PlanQueue();
    const schedule = new PublishSchedule(this.planner.synced);
    let read = 0;
    // A signal reaches the sending at once, but this reader only at its next hand-over,
    // which reading ahead puts up to READ_AHEAD_CHUNKS chunks away: it stops here instead.
    const { signal } = this.deps;
    const stop = (): void => void planning.stop();
    signal?.addEventListener('abort', stop);
    try {
      // One row ahead: a chunk knows whether it is the last before its users go.
      let next = await source.next();
      while (!next.done) {
        if (signal?.aborted) return;
        reading.add(next.value);
        if (planning.busy() && ++read % ROWS_PER_TURN === 0) await nextTurn();
        next = await source.next();
        if (!next.done && !reading.full(schedule.readingAhead)) continue;
        const chunk = reading.take();
        if (next.done) {
          yield* planning.drain();
          // A stopped queue's chunks drained as empty, unplanned: the plan is not whole.
          if (signal?.aborted) return;
          yield* this.lastUsers(chunk ? await this.planChunk(chunk.intents, chunk.rows) : []);
          return;
        }
        // Handed over once the next chunk's plan has started, so that it is planned meanwhile.
        let before: PlannedIntent[][] = [];
        if (!schedule.passesAhead()) {
          const planned = await planning.all();
          if (planned.failed !== undefined) {
            for (const users of planned.users) if (users.length > 0) yield users;
            throw planned.failed.error;
          }
          before = planned.users;
          await schedule.planned();
        }
        if (chunk) planning.add(() => this.planChunk(chunk.intents, chunk.rows));
        for (const users of before) if (users.length > 0) yield users;
        yield* planning.done();
      }
      yield* planning.drain();
      if (signal?.aborted) return;
      yield* this.lastUsers([]);
    } finally {
      signal?.removeEventListener('abort', stop);
      // A run stopped early writes nothing more once it is told so: the chunk being planned ends first.
      await planning.stop();
      // Ends the sources' reading when the run stops before their end.
      await source.return?.(undefined);
    }
  }

  /**
   * The plan is finished before its last users go: a run killed while sending them is then
   * known to be planned whole, and its resume finishes it. A plan stopped here (the delete
   * threshold) still hands its last users over first: upserts are sent, deletes are not.
   */
  private async *lastUsers(users: PlannedIntent[]): AsyncGenerator<PlannedIntent[]> {
    this.reading = false;
    const finished = await this.finishPlan().then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    if (users.length > 0) yield users;
    if (finished !== undefined) throw finished.error;
  }

  /** Plans and records one chunk, writes what needs no call; resolves to its users. */
  private async planChunk(intents: readonly Intent[], rows: readonly RowResult[]): Promise<PlannedIntent[]> {
    const { writer, gate } = this.context;
    const runId = this.input.run.id;
    const plan = await this.planner.planChunk(intents, rows);
    await this.record(plan.work);
    // What the chunk's rows say of their parents is noted first: a pick whose event a `when:`
    // left out, or whose row failed, says so (`lostPicks`).
    for (const row of [...plan.rowResults, ...plan.held]) noteLeftOut(gate, row);
    const { unchanged, lost } = await lostPicks(plan.short, plan.unchanged, gate, plan.refused);
    for (const row of plan.rowResults) await this.writeRow(row);
    for (const row of lost) {
      await writer.write(rowResult(runId, row));
      noteLeftOut(gate, row);
    }
    // Unchanged rows cost a key each, not a planned intent and a result (docs/ledger.md,
    // "What a run stores"): nothing is sent for them, so a resume has nothing to finish.
    await this.recordUnchanged(unchanged);
    for (const item of unchanged) {
      if (isParentKind(item.kind))
        await gate.passed({ kind: item.kind, key: item.key, aliases: item.aliases });
    }
    const users = plan.work.filter((item) => phaseOf(item) === 'users');
    this.context.lastSent.readAhead(users);
    this.users += users.length;
    this.countLater(plan.work);
    return users;
  }

  /**
   * A row's result, and a hold on its user's keys when the merge refused it for who its
   * person is (`keysHeldBy`): another job's links must not reach the account meanwhile.
   */
  private async writeRow(row: RowResult): Promise<void> {
    await this.context.writer.write(rowResult(this.input.run.id, row));
    for (const key of keysHeldBy(row)) await this.context.gate.holds.hold(key, row.errorCode);
  }

  /** Mirror deletes, the rows that waited for them, and the plan's size for `resume`. */
  private async finishPlan(): Promise<void> {
    const { ledger, logger } = this.deps;
    const runId = this.input.run.id;
    await this.unchangedWritten();
    for (const row of this.planner.failedRows()) {
      await this.writeRow(row);
      noteLeftOut(this.context.gate, row);
    }
    let end;
    try {
      end = await this.planner.finish();
    } catch (error) {
      if (!(error instanceof DeleteThresholdError)) throw error;
      // Kept with the run, as `evsync runs` shows a run the threshold stopped; its sources
      // were read whole (`sourcesCutShort`): a retry of its failed rows is no partial plan's.
      await ledger.mergeRunOptions(runId, { aborted: error.message, readWhole: true });
      throw new PlanStopped(error.message, undefined, { cause: error });
    }
    for (let start = 0; start < end.deletes.length; start += PLAN_CHUNK)
      await this.record(end.deletes.slice(start, start + PLAN_CHUNK));
    this.countLater(end.deletes);
    for (const row of end.rowResults) {
      await this.context.writer.write(rowResult(runId, row));
      noteLeftOut(this.context.gate, row);
    }
    // From now on a resume knows the whole plan is recorded.
    const planned = await ledger.countPlanned(runId);
    // Rows per step: what a later run's percentage `min_rows` compares with (collect/min-rows.ts).
    await ledger.mergeRunOptions(runId, { planned, [STEP_ROWS_OPTION]: this.stepRows });
    logger?.info({ runId, planned, planMs: Math.round(this.planner.planMs) }, 'run planned');
  }

  private countLater(items: readonly PlannedIntent[]): void {
    for (const item of items) {
      const phase = phaseOf(item);
      if (phase !== 'users') this.later.set(phase, (this.later.get(phase) ?? 0) + 1);
    }
  }

  private async record(items: readonly PlannedIntent[]): Promise<void> {
    await this.recorded(() => this.deps.ledger.recordPlannedIntents(this.input.run.id, items));
  }

  /**
   * Not waited for: nothing is sent for these rows, so the plan goes on while the ledger
   * writes them (one statement per chunk took a round trip to the ledger's thread each,
   * a fifth of a nightly run that changed nothing). The plan waits for them before it says
   * it is whole (`unchangedWritten`); one that fails stops the run there.
   */
  private async recordUnchanged(items: readonly PlannedIntent[]): Promise<void> {
    if (items.length === 0) return;
    // A few in flight at most: a ledger slower than the source does not hold every key.
    if (this.unchangedWrites.length >= UNCHANGED_IN_FLIGHT) await this.unchangedWrites.shift();
    const keys = items.map(({ kind, key }) => ({ kind, key }));
    const write = this.recorded(() => this.deps.ledger.recordUnchanged(this.input.run.id, keys));
    // Kept until waited for; a failure is thrown by `unchangedWritten`, not as unhandled.
    write.catch(() => undefined);
    this.unchangedWrites.push(write);
  }

  private async unchangedWritten(): Promise<void> {
    const writes = this.unchangedWrites.splice(0);
    await Promise.all(writes);
  }

  /** A write of the plan; one that fails stops the run before anything more is sent. */
  private async recorded(write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.deps.logger?.error({ err: error, runId: this.input.run.id }, 'recording the plan failed');
      throw new PlanStopped(
        `the run's plan could not be recorded in the ledger (${withoutFullStop(messageOf(error))}), so nothing more was sent`,
        PLAN_NOT_RECORDED_STEP,
        { cause: error },
      );
    }
  }

  /** A later phase's intents, read back from the recorded plan page by page. */
  private async *readBack(phase: Exclude<PhaseName, 'users'>): AsyncGenerator<PlannedIntent[]> {
    const { run } = this.input;
    const { ledger } = this.deps;
    const span = await ledger.planSpan(run.id);
    for await (const page of pendingBySpans(ledger, run.id, span, PHASE_KINDS[phase], PAGE)) {
      const mine = page.filter((record) => record.plannedAction !== 'unchanged' && phaseOf(record) === phase);
      if (mine.length === 0) continue;
      // A secret param (a password) is stored redacted: read again from the source, as resume does.
      const restored = await restoreIntents(this.deps, run, mine);
      for (const row of restored.unsendable) await this.context.writer.write(rowResult(run.id, row));
      const items = mine.flatMap((record) => restored.items.get(record) ?? []);
      if (items.length > 0) yield items;
    }
  }
}
