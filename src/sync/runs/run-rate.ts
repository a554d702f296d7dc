import type { RunRecord } from '../../model/run-record.js';
import type { JobFile } from '../job-file.js';
import { jobFileSchema } from '../job-file.js';

/** The rate a run was started with (kept in its options), for resume and retry. */
export function rateOfRun(run: Pick<RunRecord, 'options'>): JobFile['rate'] {
  const parsed = jobFileSchema.shape.rate.safeParse(run.options.rate);
  return parsed.success ? parsed.data : { per_second: 10, concurrency: 4 };
}
