import { z } from 'zod';
import type { RunRecord } from '../../model/run-record.js';

/**
 * The rows one step's source yielded in a run (every row read, valid or not). A run keeps
 * them in its options as `stepRows` once its sources are read to their end: the record a
 * percentage `min_rows` compares with (docs/sync-engine.md, "Empty sources").
 */
export interface StepRows {
  /** The step's place in the job, from 0. */
  step: number;
  /** The source as logs name it (`./attendees.csv`, `query "attendees"`): what a later run matches on. */
  source: string;
  rows: number;
}

/** The run option that holds a run's {@link StepRows}. */
export const STEP_ROWS_OPTION = 'stepRows';

// Run options are JSON read back from the ledger: checked, not trusted.
const stepRowsSchema = z.array(
  z.object({ step: z.number().int(), source: z.string(), rows: z.number().int().nonnegative() }),
);

/**
 * The rows per step a run recorded; `undefined` when it recorded none (a retry, a run cut
 * short). Apart from `min-rows.ts`, which opens sources: `evsync status` reads this without
 * loading the source drivers (0.1 s of its start).
 */
export function stepRowsOf(run: Pick<RunRecord, 'options'>): StepRows[] | undefined {
  const parsed = stepRowsSchema.safeParse(run.options[STEP_ROWS_OPTION]);
  return parsed.success ? parsed.data : undefined;
}
