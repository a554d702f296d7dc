import type { Intent } from '../../model/intent.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { isLookupKey } from '../../model/row-origin.js';
import type { IntentResultRecord } from '../../model/result-records.js';
import type { RunRecord } from '../../model/run-record.js';
import type { EngineDeps } from '../execute/engine-deps.js';
import { buildPlan } from '../plan/build-plan.js';
import { HASH_KEY_PURPOSE } from '../plan/params-hash.js';
import type { RowResult } from '../plan/sync-plan.js';
import { ownCopyOf } from '../processors/id-cache.js';
import { goneRow, mergedRow } from './refused-rows-now.js';
import { intentId, readJobAgain } from './restore-params.js';

/** What a retry found of the rows that failed the mapping, read again from the job's sources. */
export interface RowsReadAgain {
  /** The intents of the rows that are valid now, planned against the ledger. */
  work: PlannedIntent[];
  unchanged: PlannedIntent[];
  /** A sentence per row that is still invalid, or no longer in the source: why nothing went. */
  notSent: string[];
  /** The rows that still fail in the source, as it now reports them: the retry records them. */
  stillFailing: RowResult[];
  /**
   * The rows the source no longer has by their key, and those its users now merge into
   * another key's (`mergedRow`): the retry records them, skipped.
   */
  gone: RowResult[];
}

const NOTHING: RowsReadAgain = { work: [], unchanged: [], notSent: [], stillFailing: [], gone: [] };

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
  const asked = failed.filter((result) => isLookupKey(result.key));
  if (asked.length === 0) return NOTHING;
  // Read twice, keeping little: first the asked rows (and what still fails of them), then
  // every intent of those rows (a session row's event, user and link, which a merge of
  // people may yield apart). Held whole, the source cost about 1 KB a row.
  const ids = new Set(asked.map(intentId));
  const found = new Map<string, Intent>();
  const stillFailing = new Map<string, RowResult>();
  /** Asked keys that are now another client_id of a merged user, by that user's key. */
  const mergedInto = new Map<string, string>();
  const why = 'for the rows that failed the mapping';
  const first = await readJobAgain(deps, base, why, (row) => {
    for (const intent of row.intents) {
      if (ids.has(intentId(intent))) found.set(intentId(intent), ownCopyOf(intent));
      // The person is whole again (docs/sync-engine.md, "One person, many sources"): the
      // merged user carries the asked row's data and key, and is what the retry sends.
      for (const alias of intent.aliases ?? []) {
        if (!ids.has(intentId({ kind: intent.kind, key: alias }))) continue;
        mergedInto.set(intentId({ kind: intent.kind, key: alias }), intent.key);
        found.set(intentId(intent), ownCopyOf(intent));
      }
    }
    for (const result of row.rowResults)
      if (ids.has(intentId(result))) stillFailing.set(intentId(result), ownCopyOf(result));
  });
  if ('problem' in first) return { ...NOTHING, notSent: [first.problem] };
  const rows = new Set([...found.values()].map((intent) => rowOf(intent.origin)));
  const intents = new Map<string, Intent>();
  if (rows.size > 0) {
    const second = await readJobAgain(deps, base, why, (row) => {
      // A later step's intent of a key takes the earlier one's place, as in a run (a user's
      // repeat never comes: `UsersApart`).
      for (const intent of row.intents)
        if (rows.has(rowOf(intent.origin))) intents.set(intentId(intent), ownCopyOf(intent));
    });
    if ('problem' in second) return { ...NOTHING, notSent: [second.problem] };
  }
  const { job } = first;
  const notSent: string[] = [];
  const gone: RowResult[] = [];
  for (const result of asked) {
    const into = mergedInto.get(intentId(result));
    if (into !== undefined && !found.has(intentId(result))) {
      gone.push(mergedRow(result, into));
      continue;
    }
    if (found.has(intentId(result))) continue;
    const still = stillFailing.get(intentId(result));
    if (still === undefined) gone.push(goneRow(result));
    notSent.push(
      still === undefined
        ? `${result.kind} ${result.key}: the job's source no longer has this row`
        : `${result.kind} ${result.key} still fails: ${still.message}`,
    );
  }
  const failing = [...stillFailing.values()];
  if (intents.size === 0) return { ...NOTHING, notSent, stillFailing: failing, gone };
  const plan = await buildPlan(deps.ledger, {
    jobName: base.jobName,
    intents: [...intents.values()],
    rowResults: [],
    mode: 'upsert',
    threshold: job.delete_threshold,
    force: false,
    ...(deps.platform.deriveKey ? { hashKey: deps.platform.deriveKey(HASH_KEY_PURPOSE) } : {}),
  });
  return { work: plan.work, unchanged: plan.unchanged, notSent, stillFailing: failing, gone };
}

/** The source row an intent came from, as one set key (a session row yields several intents). */
function rowOf(origin: Intent['origin']): string {
  return `${origin.source}\u0000${origin.row}`;
}
