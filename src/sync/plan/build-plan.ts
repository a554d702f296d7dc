import type { Intent, IntentDependency, IntentKind } from '../../model/intent.js';
import { PARENT_KINDS } from '../../model/intent.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { DeleteThreshold } from '../job-file.js';
import { addClearedFields } from './cleared-fields.js';
import { keepUncarriedFields } from './uncarried-fields.js';
import { holdBackLostCheckIns } from './lost-check-ins.js';
import {
  hasUnreadableKey,
  keyApartFromIntents,
  noteHeldDeletes,
  planMirrorDeletes,
} from './mirror-deletes.js';
import { diffIntents } from './plan-intents.js';
import type { KnownState, RowResult, SyncPlan } from './sync-plan.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { DependencyGate, removalLookup, type MissingParent } from '../phases/dependency-gate.js';
import { noteLeftOut } from '../phases/left-out-parents.js';
import { KeyHolds } from '../phases/key-holds.js';
import { withoutMissingPicks } from '../phases/schedule-picks.js';
import { labelsOf } from '../report/person-params.js';

/** The part of the ledger a plan reads. */
export type PlanLedger = Pick<
  Ledger,
  'loadHashes' | 'loadIdMap' | 'knownKeys' | 'listRuns' | 'results' | 'pendingIntents'
> &
  Partial<Pick<Ledger, 'syncedParamNames' | 'lastRemovals' | 'lastRefusals' | 'syncedParams' | 'holds'>>;

export interface BuildPlanInput {
  /** The job's name: mirror mode deletes only what runs of this job synced. */
  jobName: string;
  intents: readonly Intent[];
  rowResults: readonly RowResult[];
  mode: 'upsert' | 'mirror';
  threshold: DeleteThreshold;
  /** Deletes above the threshold go ahead. */
  force: boolean;
  /** The key of hashes of params with a secret (see `hashIntent`); without it they always differ. */
  hashKey?: Uint8Array;
  /**
   * A full run (`--full`, docs/sync-engine.md "Full runs"): rows the ledger says are synced
   * are sent too. Mirror deletes are planned as in any run. @defaultValue `false`
   */
  full?: boolean;
}

/** What the ledger knows that a plan of these intents needs: hashes of their kinds, ids of users and events. */
export async function loadKnownState(ledger: PlanLedger, kinds: Iterable<IntentKind>): Promise<KnownState> {
  const hashes = new Map<IntentKind, ReadonlyMap<string, string>>();
  const ids = new Map<IntentKind, ReadonlyMap<string, number>>();
  await Promise.all([
    ...[...new Set(kinds)].map(async (kind) => hashes.set(kind, await ledger.loadHashes(kind))),
    ...PARENT_KINDS.map(async (kind) => ids.set(kind, await ledger.loadIdMap(kind))),
  ]);
  return { hashes, ids };
}

/**
 * The plan of a run: the diff against the last-synced hashes, less the check-ins whose
 * answer was lost in an earlier run (held back for an operator), and, in mirror mode, the
 * deletes (which throw `DeleteThresholdError` above the threshold unless forced, and are
 * held back when a failed row's key could not be read).
 */
export async function buildPlan(
  ledger: PlanLedger,
  input: BuildPlanInput,
  known?: KnownState,
): Promise<SyncPlan> {
  const state =
    known ??
    (await loadKnownState(
      ledger,
      input.intents.map((intent) => intent.kind),
    ));
  const started = performance.now();
  const diff = diffIntents(input.intents, state, input.hashKey, input.full ?? false);
  const planMs = performance.now() - started;
  if (ledger.syncedParams)
    await keepUncarriedFields({ syncedParams: ledger.syncedParams.bind(ledger) }, diff, {
      hashes: state.hashes,
      hashKey: input.hashKey,
      full: input.full ?? false,
    });
  if (ledger.syncedParamNames)
    await addClearedFields({ syncedParamNames: ledger.syncedParamNames.bind(ledger) }, diff.work);
  const checkIns = await holdBackLostCheckIns(ledger, diff.work);
  const inRun = (kind: IntentKind, key: string): boolean => diff.seen.get(kind)?.has(key) === true;
  const plan: SyncPlan = {
    work: checkIns.work,
    unchanged: diff.unchanged,
    rowResults: [
      ...input.rowResults.map((row) => keyApartFromIntents(row, inRun)),
      ...diff.duplicates,
      ...checkIns.held,
    ],
    deletes: [],
    planMs,
  };
  const gated = await linksWithoutParent(plan, state, ledger);
  if (gated.missing.size > 0) plan.parentMissing = gated.missing;
  if (gated.warnings.size > 0) plan.pickWarnings = gated.warnings;
  if (input.mode === 'mirror') {
    const mirror = await planMirrorDeletes({
      seen: diff.seen,
      liveLinks: (kind) => diff.seen.get(kind) ?? [],
      rowResults: plan.rowResults,
      knownKeys: (kind) => ledger.knownKeys(kind, input.jobName),
      ids: state.ids,
      threshold: input.threshold,
      force: input.force,
      labels: (kind, keys) => labelsOf(ledger, kind, keys),
    });
    plan.work.push(...mirror.deletes);
    plan.deletes = mirror.counts;
    if (mirror.labels.size > 0) plan.deleteLabels = mirror.labels;
    if (mirror.held) {
      plan.heldDeletes = mirror.held;
      plan.rowResults = plan.rowResults.map((row) =>
        hasUnreadableKey(row) ? noteHeldDeletes(row, mirror.held!) : row,
      );
    }
  }
  return plan;
}

/**
 * The planned links the run's {@link DependencyGate} will skip (a parent must be sent or left
 * unchanged in this run, or be known to the ledger from an earlier one), with the reason the
 * run will record; and the schedules it will send without some events, with their warning.
 */
async function linksWithoutParent(
  plan: Pick<SyncPlan, 'work' | 'unchanged' | 'rowResults'>,
  state: KnownState,
  ledger: PlanLedger,
): Promise<GatedDependents> {
  const inRun = new Set<string>();
  for (const item of [...plan.work, ...plan.unchanged]) {
    if (item.op !== 'upsert') continue;
    inRun.add(`${item.kind}\u0000${item.key}`);
    // A merged user answers to each of its client_ids, as the run's gate knows it.
    for (const alias of item.aliases ?? []) inRun.add(`${item.kind}\u0000${alias}`);
  }
  const inThisRun = (dep: IntentDependency): boolean => inRun.has(`${dep.kind}\u0000${dep.clientId}`);
  const gate = planGate(
    (dep) => inThisRun(dep) || state.ids.get(dep.kind)?.has(dep.clientId) === true,
    ledger,
    new KeyHolds((await ledger.holds?.().list()) ?? [], undefined, inThisRun),
  );
  for (const row of plan.rowResults) noteLeftOut(gate, row);
  return gateDependents(plan.work, gate);
}

/** The dependents a plan's gate skips, and the schedules it sends without some events. */
export interface GatedDependents {
  missing: Map<PlannedIntent, MissingParent>;
  warnings: Map<PlannedIntent, string>;
}

/** A plan's {@link DependencyGate}: `known` says whether the run or the id map has a parent. */
export function planGate(
  known: (dep: IntentDependency) => boolean,
  ledger: PlanLedger,
  holds?: KeyHolds,
): DependencyGate {
  return new DependencyGate(
    known,
    ledger.lastRemovals ? removalLookup({ lastRemovals: ledger.lastRemovals.bind(ledger) }) : undefined,
    holds,
  );
}

/** Asks the gate, for each upsert with parents, what the run will do with it (see {@link linksWithoutParent}). */
export async function gateDependents(
  work: readonly PlannedIntent[],
  gate: DependencyGate,
): Promise<GatedDependents> {
  const missing = new Map<PlannedIntent, MissingParent>();
  const warnings = new Map<PlannedIntent, string>();
  for (const item of work) {
    if (item.op !== 'upsert' || item.dependsOn.length === 0) continue;
    const parents = await gate.missing(item.dependsOn);
    if (parents.length === 0) continue;
    const partial = withoutMissingPicks(item, parents, (m) => gate.known(m.parent));
    if (partial) {
      if (partial.warning !== '') warnings.set(item, partial.warning);
      continue;
    }
    const first = await gate.first(item.dependsOn);
    if (first) missing.set(item, first);
  }
  return { missing, warnings };
}
