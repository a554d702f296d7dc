import type { Ledger } from '../../ledger/ledger.js';
import { isParentKind, PARENT_KINDS, type Intent, type IntentKind } from '../../model/intent.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { KeyRegistry } from '../../mapping/key-registry.js';
import { isRepeatedRowKey, isRowPlaceKey } from '../../model/row-origin.js';
import { LaterStepRows } from './later-step-rows.js';
import { ownCopy, ownCopyOf, type IdCache } from '../processors/id-cache.js';
import { keepPartialSchedules } from './partial-schedules.js';
import { planGate, type BuildPlanInput, type PlanLedger } from './build-plan.js';
import { addClearedFields } from './cleared-fields.js';
import { keepUncarriedFields } from './uncarried-fields.js';
import { holdBackLostCheckIns } from './lost-check-ins.js';
import {
  addFailedRow,
  hasUnreadableKey,
  keyApartFromIntents,
  noteHeldDeletes,
  planMirrorDeletes,
  type FailedRowKeys,
  type MirrorDeletes,
  type KeySet,
} from './mirror-deletes.js';
import { DeleteThresholdError } from './delete-threshold-error.js';
import { isLinkKind, type LinkKind } from './link-pairs.js';
import { diffIntents, intentHashes, type KnownIds } from './plan-intents.js';
import { SyncedHashes } from './synced-hashes.js';
import type { SyncedHashOf } from '../../mapping/mapped-item.js';
import type { MergeReport } from '../collect/merge-people.js';
import { labelsOf } from '../report/person-params.js';
import { PlanTally, type PlanSummary } from './plan-summary.js';
import type { RowResult } from './sync-plan.js';
import { leftOutParents } from '../phases/left-out-parents.js';
import { HeldDependents } from './held-dependents.js';
import { KeyHolds } from '../phases/key-holds.js';
import type { KeyHold } from '../../ledger/ledger-holds.js';
import type { KeyRefusal } from '../../ledger/ledger.js';

/** The ledger a streamed plan reads: hashes chunk by chunk instead of all at once. */
export type StreamPlanLedger = PlanLedger & Pick<Ledger, 'hashesOf' | 'hashTails'>;

export type StreamPlanInput = Omit<BuildPlanInput, 'intents' | 'rowResults'>;

/** One chunk's share of the plan. */
export interface ChunkPlan {
  work: PlannedIntent[];
  unchanged: PlannedIntent[];
  /** Results to record now (mirror mode keeps rows with an unreadable key until the end). */
  rowResults: RowResult[];
  /**
   * Of `unchanged`, the schedules kept as the list last sent short (`partial-schedules.ts`),
   * by key, as the source has them: the run asks its gate why their events are missing, and
   * records a pick lost as such (`runs/streamed-plan.ts`). A plan with `dependents` asks its
   * own gate the same (`HeldDependents.lostPicks`) and answers those lost among `rowResults`.
   */
  short?: ReadonlyMap<string, PlannedIntent>;
  /** Events of `short`'s picks whose last send the platform refused: for `lostPicks`' gate. */
  refused?: ReadonlyMap<string, KeyRefusal>;
  /**
   * This chunk's failed rows keyed by a client_id, recorded only once the sources end (a
   * later valid row may have the key): the gate is told at once that their user or event
   * failed, so that a pick lost for it says why rather than "unknown".
   */
  held: RowResult[];
}

/** What only the end of the sources decides: mirror deletes, and rows that waited for them. */
export interface PlanEnd {
  deletes: PlannedIntent[];
  rowResults: RowResult[];
}

/**
 * The plan of a run made chunk by chunk while the sources are read (docs/sync-engine.md,
 * "Memory"): each chunk is diffed against the synced hashes of its own keys, and all that
 * stays per key is a slot in a {@link KeyRegistry} (about 16 bytes: the keys mirror mode
 * keeps). The same rules as `buildPlan` apply: cleared fields, lost check-ins held back,
 * and, at the end, mirror deletes against the threshold.
 */
export class StreamPlanner {
  private readonly seen = new Map<IntentKind, SeenKeys>();
  /** The id cache's views, as `diffIntents` asks them. */
  private readonly ids: KnownIds['ids'];
  /**
   * Mirror mode: the keys of links and schedules themselves, which the hashes of `seen`
   * cannot give back, to tell a gone link that names the same platform records as one of
   * them (a speaker re-keyed in the source). One string per link, about 100 bytes with its
   * slot: 100,000 links cost some 10 MB, the order of the known keys `finish` loads for
   * them anyway; links are few next to users, whose keys are never kept.
   */
  private readonly links = new Map<LinkKind, Set<string>>();
  private readonly failed: FailedRowKeys = { kept: new Map(), unreadable: [] };
  /**
   * Failed rows keyed by their client_id, recorded once every source is read: a later row
   * of the run may have that key and be valid, and then the failed one is keyed apart
   * (`keyApartFromIntents`), as `buildPlan` keys it. At most {@link HELD_FAILED_ROWS}.
   */
  private heldFailed: RowResult[] = [];
  private readonly tally = new PlanTally();
  /** `evsync plan` (see {@link StreamPlannerOptions.dependents}); absent in a run. */
  private readonly dependents: HeldDependents | undefined;
  /** Published by the reader between chunks (see {@link SyncedHashes.publish}). */
  readonly synced: SyncedHashes;
  /** For the run's mapping: see {@link SyncedHashes.forMapping}. */
  readonly syncedHash: SyncedHashOf;
  private refusal: DeleteThresholdError | undefined;
  private rows = 0;
  /** Rows a later step's row of the same key replaced. */
  private readonly repeats = new LaterStepRows();
  /** Milliseconds spent diffing. */
  planMs = 0;

  constructor(
    private readonly ledger: StreamPlanLedger,
    private readonly input: StreamPlanInput,
    /** The run's id cache: ids found by this run count as known, as in `buildPlan`. */
    private readonly idCache: IdCache,
    options: StreamPlannerOptions = {},
  ) {
    this.synced = new SyncedHashes(ledger);
    this.syncedHash = this.synced.forMapping(input.hashKey, input.full === true);
    this.ids = new Map(PARENT_KINDS.map((kind) => [kind, idCache.view(kind)] as const));
    if (options.dependents)
      this.dependents = new HeldDependents(
        planGate(
          (dep) => this.has(dep.kind, dep.clientId) || idCache.has(dep.kind, dep.clientId),
          ledger,
          new KeyHolds(options.holds, undefined, (dep) => this.has(dep.kind, dep.clientId)),
        ),
      );
  }

  async planChunk(intents: readonly Intent[], read: readonly RowResult[]): Promise<ChunkPlan> {
    const { unique, replaced } = this.repeats.lastOfEachKey(intents);
    const rowResults = replaced.length === 0 ? read : [...read, ...replaced];
    const hashes = new Map<IntentKind, ReadonlyMap<string, string>>();
    const hashOf = intentHashes(this.input.hashKey);
    for (const kind of new Set(unique.map((intent) => intent.kind))) {
      const ofKind = unique.every((intent) => intent.kind === kind)
        ? unique
        : unique.filter((intent) => intent.kind === kind);
      const seen = this.seenOf(kind);
      hashes.set(kind, await this.synced.of(kind, ofKind, hashOf, (key) => seen.has(key)));
      for (const intent of ofKind) seen.add(intent.key, ++this.rows);
      // A merged user's other client_ids are in the sources too: mirror mode keeps them.
      if (kind === 'user')
        for (const intent of unique) for (const alias of intent.aliases ?? []) seen.add(alias, ++this.rows);
      if (this.input.mode === 'mirror' && isLinkKind(kind))
        this.keepLinks(
          kind,
          ofKind.map((intent) => intent.key),
        );
    }
    // A key with no synced hash is created unless the id map has it: asked exactly, one
    // statement per kind, of the few the id cache's hashes say it may have.
    await this.idCache.prefetch(
      unique.filter((intent) => isParentKind(intent.kind) && !hashes.get(intent.kind)?.has(intent.key)),
    );
    const started = performance.now();
    // A full run still reads the hashes of the chunk's keys (one statement per kind, as any
    // run): a changed link is told from one to add again, and a synced check-in is not posted twice.
    const diff = diffIntents(
      unique,
      { hashes, ids: this.ids },
      this.input.hashKey,
      this.input.full ?? false,
      hashOf,
    );
    this.planMs += performance.now() - started;
    const { short, refused } = await keepPartialSchedules(diff, hashes.get('schedule'), {
      // The id cache answers "may be known" for keys it has not read: they are read exactly first.
      prefetch: (refs) => this.idCache.prefetch(refs),
      inRun: (dep) => this.has(dep.kind, dep.clientId),
      hasId: (dep) => this.idCache.has(dep.kind, dep.clientId),
      ...(this.ledger.lastRefusals ? { lastRefusals: this.ledger.lastRefusals.bind(this.ledger) } : {}),
    });
    if (this.ledger.syncedParams)
      await keepUncarriedFields({ syncedParams: this.ledger.syncedParams.bind(this.ledger) }, diff, {
        hashes,
        hashKey: this.input.hashKey,
        full: this.input.full ?? false,
      });
    if (this.ledger.syncedParamNames)
      await addClearedFields({ syncedParamNames: this.ledger.syncedParamNames.bind(this.ledger) }, diff.work);
    const checkIns = await holdBackLostCheckIns(this.ledger, diff.work);
    const now: RowResult[] = [...checkIns.held];
    const held: RowResult[] = [];
    if (this.input.mode === 'upsert') await this.noteLeftOutButSynced(rowResults);
    for (const read of rowResults) {
      const row = keyApartFromIntents(read, (kind, key) => this.has(kind, key));
      if (this.input.mode === 'mirror') addFailedRow(this.failed, row);
      // Its message says whether mirror mode held its deletes back, known only at the end.
      if (this.input.mode === 'mirror' && hasUnreadableKey(row)) continue;
      // Keyed by its client_id, which a later valid row may have too: recorded at the end.
      if (row === read && keyedByPerson(row) && this.heldFailed.length < HELD_FAILED_ROWS) {
        const copy = ownCopyOf(row);
        this.heldFailed.push(copy);
        held.push(copy);
      } else now.push(row);
    }
    const plan = {
      work: checkIns.work,
      unchanged: diff.unchanged,
      rowResults: now,
      held,
      ...(short ? { short } : {}),
      ...(refused ? { refused } : {}),
    };
    if (this.dependents) {
      // The chunk's rows are noted before the gate is asked, as the run does (`runs/streamed-plan.ts`).
      for (const row of [...now, ...held]) this.dependents.note(row);
      const { unchanged, lost } = await this.dependents.lostPicks(short, plan.unchanged, refused);
      const told = { work: plan.work, unchanged, rowResults: [...now, ...lost], held };
      for (const row of lost) this.dependents.note(row);
      this.tally.add({ ...told, work: this.dependents.sift(told.work, (kind, key) => this.has(kind, key)) });
      // Their gate has been asked: what `evsync plan` counts is what the run will record.
      return told;
    }
    this.tally.add(plan);
    return plan;
  }

  /**
   * Rows a `when:` condition left out whose user or event an earlier run synced (it has a
   * synced hash): upsert mode removes nothing, so the plan says they stay. One ledger
   * read per kind and chunk.
   */
  private async noteLeftOutButSynced(rowResults: readonly RowResult[]): Promise<void> {
    const byKind = new Map<IntentKind, Map<string, string>>();
    for (const row of rowResults)
      for (const parent of leftOutParents(row)) {
        const keys = byKind.get(parent.kind) ?? new Map<string, string>();
        keys.set(parent.clientId, row.message);
        byKind.set(parent.kind, keys);
      }
    for (const [kind, keys] of byKind) {
      const synced = await this.ledger.hashesOf(kind, [...keys.keys()]);
      for (const [key, reason] of keys) if (synced.has(key)) this.tally.leftOutButSynced(kind, key, reason);
    }
  }

  /**
   * Mirror mode's deletes, once every source is read: throws `DeleteThresholdError` above
   * the threshold unless forced. Nothing has been deleted by then: deletes go in the last
   * phases, after what the sources still have.
   */
  /**
   * The failed rows held until every source was read, each keyed apart from the valid rows
   * of the run that have its client_id: to record before {@link finish}, which may stop.
   */
  failedRows(): RowResult[] {
    const failed = this.heldFailed.map((row) => keyApartFromIntents(row, (kind, key) => this.has(kind, key)));
    this.heldFailed = [];
    this.tally.add({ work: [], unchanged: [], rowResults: failed });
    for (const row of failed) this.dependents?.note(row);
    return failed;
  }

  async finish(): Promise<PlanEnd> {
    if (this.dependents) {
      for (const row of this.failed.unreadable) this.dependents.note(row);
      this.tally.add({ unchanged: [], rowResults: [], ...(await this.dependents.settle()) });
    }
    if (this.input.mode !== 'mirror') return { deletes: [], rowResults: [] };
    let mirror: MirrorDeletes;
    try {
      mirror = await planMirrorDeletes({
        seen: this.seen,
        failed: this.failed,
        knownKeys: (kind) => this.ledger.knownKeys(kind, this.input.jobName),
        // The whole id map, read once: a gone key whose record a kept key maps to is retired.
        ids: new Map(
          await Promise.all(
            PARENT_KINDS.map(async (kind) => [kind, await this.idCache.snapshot(kind)] as const),
          ),
        ),
        liveLinks: (kind) => this.links.get(kind) ?? [],
        syncedAnywhere: async (kind, keys) => new Set((await this.ledger.hashesOf(kind, keys)).keys()),
        threshold: this.input.threshold,
        force: this.input.force,
        // `evsync plan` sends nothing; a run has sent what the sources have by now.
        when: this.dependents === undefined ? 'after' : 'plan',
        labels: (kind, keys) => labelsOf(this.ledger, kind, keys),
      });
    } catch (error) {
      if (error instanceof DeleteThresholdError) this.refusal = error;
      throw error;
    }
    const held = mirror.held;
    const rowResults = held
      ? this.failed.unreadable.map((row) => noteHeldDeletes(row, held))
      : this.failed.unreadable;
    this.tally.add({ work: mirror.deletes, unchanged: [], rowResults, deleteLabels: mirror.labels });
    if (held) this.tally.heldDeletes(held);
    return { deletes: mirror.deletes, rowResults };
  }

  /** People merged across steps, once every source is read. */
  mergedPeople(report: MergeReport): void {
    this.tally.mergedPeople(report);
  }

  /** How a source decided who is who: shown with the plan. */
  identity(lines: readonly string[]): void {
    this.tally.identity(lines);
  }

  summary(): PlanSummary {
    return this.tally.summary(this.planMs);
  }

  /** Whether the sources had this key (a hash match: a rare false "yes" keeps a record rather than deleting it). */
  has(kind: IntentKind, key: string): boolean {
    return this.seen.get(kind)?.has(key) === true;
  }

  /** Keys of links and schedules still in the sources (read, or kept by a failed row); mirror mode only. */
  *liveLinks(kind: LinkKind): Iterable<string> {
    yield* this.links.get(kind) ?? [];
    yield* this.failed.kept.get(kind) ?? [];
  }

  /** The threshold error `finish` threw, if it did: the run ends aborted, its caller reports it. */
  get refused(): DeleteThresholdError | undefined {
    return this.refusal;
  }

  private keepLinks(kind: LinkKind, keys: readonly string[]): void {
    let links = this.links.get(kind);
    if (!links) this.links.set(kind, (links = new Set()));
    // A copy: a key cut from a source's chunk would keep the whole chunk alive (`ownCopy`).
    for (const key of keys) links.add(ownCopy(key));
  }

  private seenOf(kind: IntentKind): SeenKeys {
    let seen = this.seen.get(kind);
    if (!seen) this.seen.set(kind, (seen = new SeenKeys()));
    return seen;
  }
}

export interface StreamPlannerOptions {
  /**
   * Say in the summary which dependents (links, schedules, RSVPs) the run will skip for a
   * missing user or event, which schedules go without some events, as `buildPlan` says
   * it, and which it skips for a lost pick (`lostPicks`): what `evsync plan` prints. A run's
   * gate says it as it sends, from its results.
   */
  dependents?: boolean;
  /** With `dependents`: the conference's key holds, so the summary says which dependents they stop. */
  holds?: readonly KeyHold[];
}

/**
 * Failed rows a streamed plan holds until the end (about 1 KB each): past them, a failed row
 * is recorded at once, keyed apart only from the valid rows read before it. Each is held as
 * a copy (`ownCopyOf`): held as they came, 5,000 failed rows (1 % of a source's rows) kept
 * nearly every 64 KB CSV chunk they were read from alive, 52 MB at 300,000 users.
 */
export const HELD_FAILED_ROWS = 5_000;

/** A failed row recorded under its client_id (not its place, not as a repeat). */
function keyedByPerson(row: RowResult): boolean {
  return (
    row.action === 'failed' &&
    row.keptKeys !== undefined &&
    !isRowPlaceKey(row.key) &&
    !isRepeatedRowKey(row.key)
  );
}

/** Keys of one kind the sources yielded, as hashes in a {@link KeyRegistry}. */
class SeenKeys implements KeySet {
  private readonly registry = new KeyRegistry();

  add(key: string, ordinal: number): void {
    this.registry.add(key, ordinal);
  }

  has(key: string): boolean {
    return this.registry.firstRow(key) !== undefined;
  }
}
