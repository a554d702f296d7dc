import type { Ledger } from '../../ledger/ledger.js';
import type { RunRecord } from '../../model/run-record.js';

/**
 * A stopped run's planned and recorded counts when fewer intents are recorded than it planned;
 * `planned` undefined when it stopped before its streamed plan had read every source (which
 * stores the plan's size once the sources are read, streamed-plan.ts). Undefined when its
 * plan is whole. Reads only.
 */
export async function cutShortPlan(
  ledger: Pick<Ledger, 'countPlanned'>,
  run: RunRecord,
): Promise<{ planned: number | undefined; recorded: number } | undefined> {
  const planned = run.options.planned;
  const counted = run.options.recordedWhenCut;
  const recorded = typeof counted === 'number' ? counted : await ledger.countPlanned(run.id);
  if (typeof planned !== 'number' && run.options.planStreamed === true)
    return { planned: undefined, recorded };
  // Runs recorded before the count was stored, and retries, record their plan in one go.
  if (typeof planned !== 'number' || recorded >= planned) return undefined;
  return { planned, recorded };
}
