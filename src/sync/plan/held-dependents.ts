import type { KeyRefusal } from '../../ledger/ledger.js';
import type { IntentKind } from '../../model/intent.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import type { DependencyGate } from '../phases/dependency-gate.js';
import { noteLeftOut } from '../phases/left-out-parents.js';
import { ownCopyOf } from '../processors/id-cache.js';
import { gateDependents } from './build-plan.js';
import { lostPicks } from './partial-schedules.js';
import type { RowResult, SyncPlan } from './sync-plan.js';

/**
 * The dependents a streamed `evsync plan` cannot tally yet (docs/sync-engine.md, "Memory"):
 * those with a user or event the sources have not yielded so far. The others are counted at
 * once: a parent the run has is there whatever comes later. Held as copies until the sources
 * end, then asked of the gate as `buildPlan` asks it; with the steps' users before their
 * links, almost none wait.
 */
export class HeldDependents {
  private held: PlannedIntent[] = [];

  constructor(private readonly gate: DependencyGate) {}

  /** What a row result tells the gate: parents left out on purpose, or failed. */
  note(row: RowResult): void {
    noteLeftOut(this.gate, row);
  }

  /**
   * Of a chunk's unchanged intents, the schedules kept as the list last sent short whose
   * missing events are data lost: the run's rule (`lostPicks`), asked of this plan's gate,
   * so that `plan` counts them skipped as the run records them.
   */
  lostPicks(
    short: ReadonlyMap<string, PlannedIntent> | undefined,
    unchanged: readonly PlannedIntent[],
    refused?: ReadonlyMap<string, KeyRefusal>,
  ): Promise<{ unchanged: PlannedIntent[]; lost: RowResult[] }> {
    return lostPicks(short, unchanged, this.gate, refused);
  }

  /** The work to count now; holds the dependents whose parents are not all in the run yet. */
  sift(work: readonly PlannedIntent[], inRun: (kind: IntentKind, key: string) => boolean): PlannedIntent[] {
    const now: PlannedIntent[] = [];
    for (const item of work) {
      if (item.op !== 'upsert' || item.dependsOn.every((dep) => inRun(dep.kind, dep.clientId)))
        now.push(item);
      else this.held.push(ownCopyOf(item));
    }
    return now;
  }

  /** The held dependents, with what the gate says the run will do with each. */
  async settle(): Promise<Pick<SyncPlan, 'work' | 'parentMissing' | 'pickWarnings'>> {
    const work = this.held;
    this.held = [];
    const gated = await gateDependents(work, this.gate);
    return { work, parentMissing: gated.missing, pickWarnings: gated.warnings };
  }
}
