import type { PlannedIntent } from '../../model/planned-intent.js';
import type { PhaseName } from '../phases/sync-phases.js';
import { splitByPhase } from '../phases/sync-phases.js';

/** One phase of a run's work, handed over in chunks (docs/sync-engine.md, "A run, step by step"). */
export interface PhaseWork {
  phase: PhaseName;
  /**
   * The phase's intents, chunk by chunk, in plan order. A streamed plan yields the first
   * phase while its sources are still being read, and later phases page by page from the
   * ledger: no phase is ever whole in memory.
   */
  chunks: AsyncIterable<readonly PlannedIntent[]> | Iterable<readonly PlannedIntent[]>;
  /** The phase's size as far as it is known (it grows while a streamed plan is being read). */
  readonly total: () => number;
  /** Whether `total` may still grow: a streamed plan still reading its sources. */
  readonly growing?: () => boolean;
}

/** A run's work, phase by phase in `PHASES` order. */
export type PlanFeed = AsyncIterable<PhaseWork> | Iterable<PhaseWork>;

/**
 * Ends a feed early: the run stops `aborted` with this reason (the delete threshold, a plan
 * that could not be recorded), after the intents already handed over are finished.
 */
export class PlanStopped extends Error {
  override readonly name = 'PlanStopped';
  constructor(
    readonly reason: string,
    readonly nextStep?: string,
    options?: ErrorOptions,
  ) {
    super(reason, options);
  }
}

/** Work already in memory (resume, retry, tests) as a feed: one chunk per phase. */
export function* feedOf(work: readonly PlannedIntent[]): Iterable<PhaseWork> {
  for (const [phase, items] of splitByPhase(work)) {
    if (items.length === 0) continue;
    yield { phase, chunks: [items], total: () => items.length };
  }
}
