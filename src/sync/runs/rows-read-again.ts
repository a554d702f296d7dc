import { messageOf } from '../../errors/evsync-error.js';
import type { Intent } from '../../model/intent.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { isRowPlaceKey } from '../../model/row-origin.js';
import type { IntentResultRecord } from '../../model/result-records.js';
import type { RunRecord } from '../../model/run-record.js';
import { collectIntents } from '../collect/collect-intents.js';
import type { EngineDeps } from '../execute/engine-deps.js';
import { loadJobFile } from '../job-file.js';
import { buildPlan } from '../plan/build-plan.js';
import { HASH_KEY_PURPOSE } from '../plan/params-hash.js';
import type { RowResult } from '../plan/sync-plan.js';
import { jobFileOf } from './restore-params.js';

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
  const file = await jobFileOf(deps.ledger, base);
  if (file === undefined) return { ...NOTHING, notSent: ['the run does not name its job file'] };
  let job;
  let collected;
  try {
    job = loadJobFile(file);
    collected = await collectIntents(job, {
      vendor: deps.platform.vendor,
      ...(deps.logger ? { logger: deps.logger } : {}),
    });
  } catch (error) {
    return { ...NOTHING, notSent: [`the job could not be read again (${messageOf(error)})`] };
  }
  const byKey = new Map(collected.intents.map((intent) => [idOf(intent), intent]));
  const stillFailing = new Map(collected.rowResults.map((row) => [idOf(row), row]));
  const intents = new Map<string, Intent>();
  const notSent: string[] = [];
  for (const result of asked) {
    const fresh = byKey.get(idOf(result));
    if (fresh !== undefined) {
      for (const intent of fromRow(collected.intents, fresh)) intents.set(idOf(intent), intent);
      continue;
    }
    const still: RowResult | undefined = stillFailing.get(idOf(result));
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

function idOf(item: Pick<Intent, 'kind' | 'key'>): string {
  return `${item.kind}\u0000${item.key}`;
}
