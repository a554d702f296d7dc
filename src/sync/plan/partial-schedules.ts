import { CODE } from '../../errors/codes.js';
import type { IntentDependency } from '../../model/intent.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import type { MissingParent } from '../phases/dependency-gate.js';
import { withoutMissingPicks } from '../phases/schedule-picks.js';

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
