import { CODE } from '../../errors/codes.js';
import type { Ledger } from '../../ledger/ledger.js';
import { KeyRegistry } from '../../mapping/key-registry.js';
import type { IntentResultRecord } from '../../model/result-records.js';
import { isLookupKey } from '../../model/row-origin.js';
import { intentId } from './restore-params.js';
import { failedResults, plannedPages, type RetryFilter } from './retry-run.js';

/** What `retryRun` would do with a run's failed rows, counted before it is asked to. */
export interface RetryPreview {
  /** Failed intents that were planned: sent again. */
  planned: number;
  /** Rows that failed the source or the mapping, keyed by client_id: read again, sent if fixed. */
  readAgain: number;
  /** How many rows that failed the source or the mapping a retry cannot find again (`retry-not-found.ts`). */
  notFound: number;
  /** The first few of them, to be named. */
  notFoundNamed: Array<Pick<IntentResultRecord, 'kind' | 'key' | 'origin'>>;
  /** Check-ins among the planned whose answer was lost: looked up before any is posted again. */
  lostCheckIns: number;
}

/** Rows of `notFound` kept to be named (the count is whole). */
const NAMED = 5;

/**
 * The dashboard's confirm page says what the retry will do with the same split of failed
 * rows as `retryRun` makes: planned intents, rows read again by key, rows not found.
 */
export async function retryPreview(
  ledger: Ledger,
  runId: string,
  filter: RetryFilter,
): Promise<RetryPreview> {
  const asked = failedResults(filter);
  const planned = new KeyRegistry();
  let plannedCount = 0;
  for await (const page of plannedPages(ledger, runId, asked))
    for (const record of page) {
      plannedCount += 1;
      planned.add(intentId(record), 1);
    }
  let readAgain = 0;
  let notFound = 0;
  const notFoundNamed: RetryPreview['notFoundNamed'] = [];
  for await (const result of ledger.eachResult(runId, asked)) {
    if (planned.firstRow(intentId(result)) !== undefined) continue;
    if (isLookupKey(result.key)) readAgain += 1;
    else if ((notFound += 1) <= NAMED) notFoundNamed.push(result);
  }
  const lost =
    !filter.kinds || filter.kinds.includes('check_in')
      ? ((await ledger.resultCounts(runId, { errorCodes: [CODE.EVSYNC_CHECK_IN_OUTCOME_UNKNOWN] })).check_in
          ?.failed ?? 0)
      : 0;
  return {
    planned: plannedCount,
    readAgain,
    notFound,
    notFoundNamed,
    lostCheckIns: lost,
  };
}
