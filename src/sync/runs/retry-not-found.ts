import { CODE } from '../../errors/codes.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { IntentResultRecord } from '../../model/result-records.js';
import { describeOrigin } from '../../model/row-origin.js';
import type { RunRecord } from '../../model/run-record.js';
import type { RowResult } from '../plan/sync-plan.js';
import { jobFileOf } from './restore-params.js';

// A retry finds a failed row again in the source by its key (`rowsReadAgain`). A row named
// by its place, or repeating another row's key, cannot be found: it may be fixed there,
// and only a run sends it. The retry says so, in the CLI and on the dashboard alike.

/**
 * How many rows a retry cannot find again, the first few by their place, and what sends
 * them. `total` counts them when `named` holds only the first few.
 */
export async function notFoundAdvice(
  ledger: Ledger,
  base: RunRecord,
  named: readonly Pick<IntentResultRecord, 'kind' | 'key' | 'origin'>[],
  total = named.length,
): Promise<string> {
  const file = await jobFileOf(ledger, base);
  const shown = named.slice(0, 5).map((row) => `${row.kind} ${where(row)}`);
  return (
    `Not found again: ${total} row(s) that failed before anything was sent have no client_id, ` +
    `or repeat another row's, so a retry cannot find them in the source (${shown.join('; ')}${total > shown.length ? '; …' : ''}). ` +
    `Fix them there and run the job again${file === undefined ? '' : ` (evsync run ${file})`}: a run sends them with what changed.`
  );
}

function where(row: Pick<IntentResultRecord, 'key' | 'origin'>): string {
  return row.origin === null ? row.key : `${row.origin.source} ${describeOrigin(row.origin)}`;
}

/** A row a retry cannot find again, failed in the retry's run so that it is seen and counted. */
export function notFoundRow(result: IntentResultRecord): RowResult {
  return {
    kind: result.kind,
    key: result.key,
    action: 'failed',
    origin: result.origin,
    errorCode: CODE.EVSYNC_RETRY_ROW_NOT_FOUND,
    message:
      `${result.origin === null ? '' : `${describeOrigin(result.origin)}: `}` +
      'a retry cannot find this row again in the source (it has no client_id, or repeats another row’s). ' +
      `It failed in run ${result.runId}: ${result.errorMessage ?? result.errorCode ?? 'failed'}. Fix it there and run the job again.`,
    params: result.params,
  };
}
