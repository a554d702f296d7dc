import { CODE } from '../../errors/codes.js';
import type { KeyRefusal } from '../../ledger/ledger.js';
import type { IntentDependency, IntentKind } from '../../model/intent.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import type { DependencyGate, MissingParent } from '../phases/dependency-gate.js';
import { lostPicksMessage, withoutMissingPicks } from '../phases/schedule-picks.js';
import type { RowResult } from './sync-plan.js';

/**
 * A schedule that changed against its synced hash only because the events it was last sent
 * without are still missing: the same list would go again. It is unchanged, planned as what
 * was sent (its params and hash without those picks), so that its synced hash stays that of
 * the partial list; once one of the events is in a run's sources or the id map, the list
 * differs and goes whole (docs/sync-engine.md, "Schedules without some events"). Before,
 * such a schedule was sent on every run, for ever (issue #40 item 8).
 *
 * `known` is the plan gate's view: the run's sources or the id map have the event. Events a
 * later step of the job reads count as missing here: read the events before the schedules
 * (as the ready-made jobs do), or such a schedule waits for the next run.
 */
export function unchangedPartialSchedule(
  item: PlannedIntent,
  synced: string | undefined,
  known: (dep: IntentDependency) => boolean,
): PlannedIntent | undefined {
  if (item.kind !== 'schedule' || item.plannedAction !== 'update' || synced === undefined) return undefined;
  const missing: MissingParent[] = [];
  for (const dep of item.dependsOn) {
    if (known(dep)) continue;
    // A schedule whose user is missing is skipped, not sent short.
    if (dep.kind !== 'event') return undefined;
    missing.push({ parent: dep, why: 'unknown', reason: '', message: '', code: CODE.EVSYNC_PARENT_MISSING });
  }
  if (missing.length === 0) return undefined;
  const partial = withoutMissingPicks(item, missing, () => false);
  if (partial === undefined || partial.item.hash !== synced) return undefined;
  return { ...partial.item, plannedAction: 'unchanged' };
}

/**
 * Of a chunk's planned work, the schedules that would go again without the same missing
 * events (`unchangedPartialSchedule`), moved to its unchanged; answers them as the source has
 * them, by key (the planner's `ChunkPlan.short`). `prefetch` reads the ids of their events
 * exactly before `known` is asked.
 *
 * An event the sources have but no run synced, whose newest result is the platform's 422
 * (`lastRefusals`), counts as missing too: it is sent again, and refused again unless its row
 * or the platform changed, so the schedule would be sent short once more, every night for
 * nothing. Such refusals come back in `refused`, for the gate that `lostPicks` asks; once the
 * event syncs, the id map has it and the schedule goes whole.
 */
export async function keepPartialSchedules(
  diff: { work: PlannedIntent[]; unchanged: PlannedIntent[] },
  synced: ReadonlyMap<string, string> | undefined,
  view: {
    prefetch(refs: Array<{ kind: IntentKind; key: string }>): Promise<void>;
    /** Whether the run's sources have the parent. */
    inRun(dep: IntentDependency): boolean;
    /** Whether the id map has it (exact once prefetched). */
    hasId(dep: IntentDependency): boolean;
    lastRefusals?: (kind: IntentKind, keys: readonly string[]) => Promise<Map<string, KeyRefusal>>;
  },
): Promise<{ short?: Map<string, PlannedIntent>; refused?: Map<string, KeyRefusal> }> {
  const updates = diff.work.filter((item) => item.kind === 'schedule' && item.plannedAction === 'update');
  if (updates.length === 0 || synced === undefined) return {};
  const picks = updates.flatMap((item) =>
    item.dependsOn.map((dep) => ({ kind: dep.kind, key: dep.clientId })),
  );
  await view.prefetch(picks);
  const unsynced = new Set<string>();
  for (const { kind, key } of picks)
    if (kind === 'event' && view.inRun({ kind, clientId: key }) && !view.hasId({ kind, clientId: key }))
      unsynced.add(key);
  const refused =
    unsynced.size > 0 && view.lastRefusals ? await view.lastRefusals('event', [...unsynced]) : undefined;
  const known = (dep: IntentDependency): boolean =>
    (view.inRun(dep) && !(dep.kind === 'event' && refused?.has(dep.clientId) === true)) || view.hasId(dep);
  const work: PlannedIntent[] = [];
  const short = new Map<string, PlannedIntent>();
  for (const item of diff.work) {
    const same = unchangedPartialSchedule(item, synced.get(item.key), known);
    if (same === undefined) work.push(item);
    else {
      diff.unchanged.push(same);
      short.set(item.key, item);
    }
  }
  diff.work.splice(0, diff.work.length, ...work);
  return {
    ...(short.size > 0 ? { short } : {}),
    ...(refused !== undefined && refused.size > 0 ? { refused } : {}),
  };
}

/**
 * Of a chunk's unchanged intents, the schedules kept as the list last sent short (`short`,
 * by key, as the source has them) whose missing events are data lost, asked of the run's
 * gate (an event whose row failed, or in no source: not one a `when:` left out or a run
 * deleted): each is recorded `skipped`, `EVSYNC_SCHEDULE_PICKS_MISSING`, its message naming
 * the events, and the run exits 1, every run until the events are there or the picks gone.
 * Nothing is sent: the platform has the list as it can be. A pick new to the source for an
 * event that is missing was otherwise never told at all.
 */
export async function lostPicks(
  short: ReadonlyMap<string, PlannedIntent> | undefined,
  unchanged: readonly PlannedIntent[],
  gate: Pick<DependencyGate, 'missing' | 'known' | 'refused'>,
  /** The chunk's events the platform refused when last sent (`keepPartialSchedules`): told to the gate first. */
  refused?: ReadonlyMap<string, KeyRefusal>,
): Promise<{ unchanged: PlannedIntent[]; lost: RowResult[] }> {
  for (const [key, refusal] of refused ?? []) gate.refused({ kind: 'event', clientId: key }, refusal);
  if (short === undefined) return { unchanged: [...unchanged], lost: [] };
  const kept: PlannedIntent[] = [];
  const lost: RowResult[] = [];
  for (const same of unchanged) {
    const whole = same.kind === 'schedule' ? short.get(same.key) : undefined;
    if (whole === undefined) {
      kept.push(same);
      continue;
    }
    const left = new Set(
      Object.entries(same.params)
        .filter(([name]) => name.startsWith('event_client_ids['))
        .map(([, clientId]) => clientId),
    );
    const gone = whole.dependsOn.filter((dep) => dep.kind === 'event' && !left.has(dep.clientId));
    const partial = withoutMissingPicks(whole, await gate.missing(gone), (m) => gate.known(m.parent));
    if (partial?.code !== CODE.EVSYNC_SCHEDULE_PICKS_MISSING) {
      kept.push(same);
      continue;
    }
    lost.push({
      kind: 'schedule',
      key: whole.key,
      action: 'skipped',
      origin: whole.origin,
      errorCode: partial.code,
      message: lostPicksMessage(partial.warning),
      params: whole.params,
      // Still in the source: mirror mode keeps it.
      keptKeys: [{ kind: 'schedule', key: whole.key }],
    });
  }
  return { unchanged: kept, lost };
}
