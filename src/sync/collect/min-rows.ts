import { CODE } from '../../errors/codes.js';
import { EvsyncError } from '../../errors/evsync-error.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { Logger } from '../../log/logger.js';
import type { RunRecord } from '../../model/run-record.js';
import { openSource } from '../../sources/open-source.js';
import { stepLabel, type JobStep, type LoadedJob, type MinRows } from '../job-file.js';
import { stepRowsOf, type StepRows } from './step-rows.js';

/** A step's source yielded fewer rows than its `min_rows`: nothing was sent (exit 3). */
export class TooFewRowsError extends EvsyncError {
  override readonly name = 'TooFewRowsError';
  constructor(message: string) {
    super(message, { code: CODE.EVSYNC_TOO_FEW_ROWS, retryable: false });
  }
}

export interface MinRowsDeps {
  ledger: Pick<Ledger, 'listRuns'>;
  logger?: Logger | undefined;
}

/**
 * Checks every step with `min_rows` before a run is created or a plan made: its source is
 * read once to count its rows (a query runs once more for it), so that a run stopped here
 * has sent nothing and recorded no plan a `resume` could send. Steps without `min_rows`
 * are not read. Below the minimum it throws {@link TooFewRowsError}, naming the step and
 * both counts, unless `force` (then it warns).
 */
export async function checkMinRows(deps: MinRowsDeps, job: LoadedJob, force: boolean): Promise<void> {
  const steps = job.steps.flatMap((step, index) => (step.min_rows === undefined ? [] : [{ step, index }]));
  if (steps.length === 0) return;
  const last = await lastCompletedRun(deps.ledger, job.name);
  for (const { step, index } of steps) {
    const { source, rows } = await countRows(job, step, index);
    const minimum = minimumOf(step.min_rows!, index, source, last);
    if (minimum === undefined) {
      deps.logger?.info(
        { step: index + 1, source, rows },
        'min_rows is a percentage and no completed run of the job counted this step yet: not checked',
      );
      continue;
    }
    if (rows >= minimum.rows) continue;
    const message =
      `${capitalised(stepLabel(step, index))} (${source}) yielded ${rows} row${rows === 1 ? '' : 's'}, ` +
      `fewer than its min_rows ${minimum.text}. ` +
      (force
        ? 'Going on (--force).'
        : 'Nothing was sent. Check the export or query; if so few rows are right, run again with --force.');
    if (!force) throw new TooFewRowsError(message);
    deps.logger?.warn({ step: index + 1, source, rows, minimum: minimum.rows }, message);
  }
}

async function countRows(job: LoadedJob, step: JobStep, index: number): Promise<StepRows> {
  const source = openSource(step.source, { baseDir: job.baseDir });
  let rows = 0;
  for await (const _row of source.rows()) rows += 1;
  return { step: index, source: source.description, rows };
}

function minimumOf(
  min: MinRows,
  index: number,
  source: string,
  last: { run: RunRecord; steps: StepRows[] } | undefined,
): { rows: number; text: string } | undefined {
  if ('count' in min) return { rows: min.count, text: String(min.count) };
  // The same source, else the same place in the job (a file renamed between runs).
  const before =
    last?.steps.find((one) => one.source === source) ?? last?.steps.find((one) => one.step === index);
  if (last === undefined || before === undefined) return undefined;
  const rows = Math.ceil((before.rows * min.percent) / 100);
  return {
    rows,
    text: `${min.percent}% of the ${before.rows} rows it had in the last completed run, ${last.run.id} (${rows})`,
  };
}

/** The newest completed run of the job that counted its rows (a retry reads no source). */
async function lastCompletedRun(
  ledger: MinRowsDeps['ledger'],
  jobName: string,
): Promise<{ run: RunRecord; steps: StepRows[] } | undefined> {
  for (const run of await ledger.listRuns(200)) {
    if (run.jobName !== jobName || run.status !== 'completed') continue;
    const steps = stepRowsOf(run);
    if (steps !== undefined) return { run, steps };
  }
  return undefined;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
