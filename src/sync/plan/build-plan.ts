import type { Intent, IntentKind } from '../../mapping/intent.js';
import { PARENT_KINDS } from '../../mapping/intent.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { DeleteThreshold } from '../job-file.js';
import { planMirrorDeletes } from './mirror-deletes.js';
import { diffIntents } from './plan-intents.js';
import type { KnownState, RowResult, SyncPlan } from './sync-plan.js';

export interface BuildPlanInput {
  intents: readonly Intent[];
  rowResults: readonly RowResult[];
  mode: 'upsert' | 'mirror';
  threshold: DeleteThreshold;
  /** Deletes above the threshold go ahead. */
  force: boolean;
}

/** What the ledger knows that a plan of these intents needs: hashes of their kinds, ids of users and events. */
export async function loadKnownState(ledger: Ledger, kinds: Iterable<IntentKind>): Promise<KnownState> {
  const hashes = new Map<IntentKind, ReadonlyMap<string, string>>();
  const ids = new Map<IntentKind, ReadonlyMap<string, number>>();
  await Promise.all([
    ...[...new Set(kinds)].map(async (kind) => hashes.set(kind, await ledger.loadHashes(kind))),
    ...PARENT_KINDS.map(async (kind) => ids.set(kind, await ledger.loadIdMap(kind))),
  ]);
  return { hashes, ids };
}

/**
 * The plan of a run: the diff against the last-synced hashes and, in mirror mode, the
 * deletes (which throw `DeleteThresholdError` above the threshold unless forced).
 */
export async function buildPlan(
  ledger: Ledger,
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
  const diff = diffIntents(input.intents, state);
  const planMs = performance.now() - started;
  const plan: SyncPlan = {
    work: diff.work,
    unchanged: diff.unchanged,
    rowResults: [...input.rowResults, ...diff.duplicates],
    deletes: [],
    planMs,
  };
  if (input.mode === 'mirror') {
    const mirror = await planMirrorDeletes({
      seen: diff.seen,
      knownKeys: (kind) => ledger.knownKeys(kind),
      threshold: input.threshold,
      force: input.force,
    });
    plan.work.push(...mirror.deletes);
    plan.deletes = mirror.counts;
  }
  return plan;
}
