import type { Ledger } from '../../ledger/ledger.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { splitByPhase } from '../phases/sync-phases.js';

/** Planned intents per ledger statement: one statement each, so that sending starts early. */
export const PLAN_CHUNK = 1000;
/**
 * The first statement is smaller: nothing is sent until it is recorded, and 1,000 rows took
 * 50–120 ms on the embedded ledger, against a few milliseconds for this many.
 */
export const FIRST_PLAN_CHUNK = 100;

export interface PlanRecording {
  /**
   * Resolves `undefined` once the item's chunk of the plan is in the ledger, or the
   * ledger's error when recording failed: then the item must not be sent, as a resume
   * would not know it.
   */
  readonly recorded: (item: PlannedIntent) => Promise<unknown>;
  /** Settles when every chunk is recorded; rejects with the ledger's error. */
  readonly done: Promise<void>;
}

/**
 * Records a run's plan chunk by chunk, in the order the engine sends it (phase by phase,
 * then what needs no call), while sending starts. An intent is sent only after its chunk
 * is recorded, so a `kill -9` at any moment leaves every sent intent in the plan; the run
 * stores how many intents it planned, so a resume can tell a plan that was cut short
 * (see resume-run.ts). Recording 20,000 intents takes 1–2 s on the embedded ledger: the
 * time the first requests would otherwise wait.
 */
export function recordPlanInOrder(
  ledger: Pick<Ledger, 'recordPlannedIntents'>,
  runId: string,
  work: readonly PlannedIntent[],
  unchanged: readonly PlannedIntent[],
): PlanRecording {
  const ordered = [...[...splitByPhase(work).values()].flat(), ...unchanged];
  const chunkOf = new Map<PlannedIntent, Promise<unknown>>();
  let previous: Promise<void> = Promise.resolve();
  for (let start = 0; start < ordered.length;) {
    const end = start + (start === 0 ? FIRST_PLAN_CHUNK : PLAN_CHUNK);
    const chunk = ordered.slice(start, end);
    start = end;
    const written = previous.then(() => ledger.recordPlannedIntents(runId, chunk));
    previous = written;
    const ready = written.then(
      () => undefined,
      (error: unknown) => error ?? new Error('recording the plan failed'),
    );
    for (const item of chunk) chunkOf.set(item, ready);
  }
  return {
    recorded: (item) =>
      chunkOf.get(item) ?? Promise.resolve(new Error(`${item.kind} "${item.key}" is not in this run's plan`)),
    done: previous,
  };
}
