import type { Intent } from '../../model/intent.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { isRowPlaceKey } from '../../model/row-origin.js';
import type { IntentResultRecord } from '../../model/result-records.js';
import type { RunRecord } from '../../model/run-record.js';
import type { EngineDeps } from '../execute/engine-deps.js';
import { buildPlan } from '../plan/build-plan.js';
import { HASH_KEY_PURPOSE } from '../plan/params-hash.js';
import type { RowResult } from '../plan/sync-plan.js';
import { intentId, readJobAgain } from './restore-params.js';

/** What a retry found of the rows that failed the mapping, read again from the job's sources. */
export interface RowsReadAgain {
  /** The intents of the rows that are valid now, planned against the ledger. */
  work: PlannedIntent[];
  unchanged: PlannedIntent[];
  /** A sentence per row that is still invalid, or no longer in the source: why nothing went. */
  notSent: string[];
}

const NOTHING: RowsReadAgain = { work: [], unchanged: [], notSent: [] };

/**
 * A retry of rows that failed the mapping (docs/sync-engine.md, "Rows are found by the
 * person"): such a row was never planned, so nothing of it is in the ledger to send again.
 * A row keyed by its client_id is looked up in the job's sources as they are now, by that
 * key: fixed there, its intents (those of its row: a session row's event, user and link)
 * are planned as a run plans them and sent; still invalid or gone, it is said why.
 * Rows named by their place (`@<source>:<row>`) or as repeats (`<key>#row<n>`) cannot be
 * looked up: a fixed source is sent by running the job again.
 */
export async function rowsReadAgain(
  deps: EngineDeps,
  base: RunRecord,
  failed: readonly IntentResultRecord[],
): Promise<RowsReadAgain> {
  const asked = failed.filter((result) => !isRowPlaceKey(result.key) && !result.key.includes('#row'));
  if (asked.length === 0) return NOTHING;
  const read = await readJobAgain(deps, base, 'for the rows that failed the mapping');
  if ('problem' in read) return { ...NOTHING, notSent: [read.problem] };
  const { job, collected } = read;
  const byKey = new Map(collected.intents.map((intent) => [intentId(intent), intent]));
  const stillFailing = new Map(collected.rowResults.map((row) => [intentId(row), row]));
  const intents = new Map<string, Intent>();
  const notSent: string[] = [];
  for (const result of asked) {
    const fresh = byKey.get(intentId(result));
    if (fresh !== undefined) {
      for (const intent of fromRow(collected.intents, fresh)) intents.set(intentId(intent), intent);
      continue;
    }
    const still: RowResult | undefined = stillFailing.get(intentId(result));
    notSent.push(
      still === undefined
        ? `${result.kind} ${result.key}: the job's source no longer has this row`
        : `${result.kind} ${result.key} still fails: ${still.message}`,
    );
  }
  if (intents.size === 0) return { ...NOTHING, notSent };
  const plan = await buildPlan(deps.ledger, {
    jobName: base.jobName,
    intents: [...intents.values()],
    rowResults: [],
    mode: 'upsert',
    threshold: job.delete_threshold,
    force: false,
    ...(deps.platform.deriveKey ? { hashKey: deps.platform.deriveKey(HASH_KEY_PURPOSE) } : {}),
  });
  return { work: plan.work, unchanged: plan.unchanged, notSent };
}

/** The intents of the source row `intent` came from (a session row yields several). */
function fromRow(intents: readonly Intent[], intent: Intent): Intent[] {
  const { origin } = intent;
  return intents.filter(
    (other) => other === intent || (other.origin.source === origin.source && other.origin.row === origin.row),
  );
}
