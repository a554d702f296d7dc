import type { Ledger } from '../../ledger/ledger.js';
import type { IntentKind } from '../../model/intent.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import type { ResultAction } from '../../model/result-records.js';
import { rowCount, type RunRecord } from '../../model/run-record.js';
import { failedResults, type RetryFilter } from './retry-filter.js';

/** What the retries of a run already did with its failed rows: `evsync retry` and the dashboard both say it. */
export interface RetriedAlready {
  /** The runs that retried it, newest first (among the latest `RECENT_RETRIES` retries). */
  retries: string[];
  /** Its failed rows of the filter. */
  failed: number;
  /** Of those, the ones a retry synced since: a second retry does not send them again. */
  synced: number;
}

/** Retries read to find a run's own: a run is retried a handful of times at most. */
const RECENT_RETRIES = 200;
/** Keys asked about per statement. */
const CHUNK = 1_000;
/** What a retry that synced a row ended it with (`SELECT_HANDLED_LATER` counts the same). */
const SYNCED: readonly ResultAction[] = ['created', 'attached', 'updated', 'unchanged', 'deleted', 'retired'];

/**
 * The retries of `run` and how many of its failed rows (of `filter`) they synced. A second
 * retry finds those rows synced with the content the source has now, records them unchanged
 * and sends nothing for them (docs/sync-engine.md, "Retry"): only the rows still failing go.
 */
export async function retriedAlready(
  ledger: Pick<Ledger, 'listRuns' | 'eachResult' | 'results'>,
  run: Pick<RunRecord, 'id'>,
  filter: RetryFilter = {},
): Promise<RetriedAlready> {
  const retries = (await ledger.listRuns(RECENT_RETRIES, { trigger: 'retry' }))
    .filter((other) => other.options.retryOf === run.id)
    .map((other) => other.id);
  const keys = new Map<IntentKind, string[]>();
  let failed = 0;
  for await (const result of ledger.eachResult(run.id, failedResults(filter))) {
    failed += 1;
    if (retries.length === 0) continue;
    const ofKind = keys.get(result.kind) ?? [];
    ofKind.push(result.key);
    keys.set(result.kind, ofKind);
  }
  const synced = new Set<string>();
  for (const retry of retries)
    for (const [kind, all] of keys)
      for (let start = 0; start < all.length; start += CHUNK)
        for (const result of await ledger.results(retry, {
          kinds: [kind],
          keys: all.slice(start, start + CHUNK),
          actions: SYNCED,
        }))
          synced.add(`${kind}\u0000${result.key}`);
  return { retries, failed, synced: synced.size };
}

/**
 * The line that says a run was retried already, by which run, and what another retry sends:
 * '' when it was not. `evsync retry` prints it; the dashboard's retry page shows it.
 */
export function retriedNote(runId: string, state: RetriedAlready): string {
  const [latest, ...older] = state.retries;
  if (latest === undefined) return '';
  const by = `run ${latest}${older.length > 0 ? ` (and before it ${older.join(', ')})` : ''}`;
  const still = state.failed - state.synced;
  if (still <= 0)
    return `Run ${runId} was retried already by ${by}, which synced all its ${rowCount(state.failed)} that failed: nothing is left to send again.`;
  return (
    `Run ${runId} was retried already by ${by}, which synced ${state.synced} of its ${rowCount(state.failed)} that failed: ` +
    `another retry sends again only the ${still} still failing` +
    (state.synced > 0
      ? `; those synced are not sent twice (recorded unchanged, or sent with a change made in the source since).`
      : '.')
  );
}

/**
 * Of what a retry would send, the intents whose planned hash is their key's synced hash: an
 * earlier retry of the run synced them as planned (a schedule it sent whole once its events
 * were there, a speaker link it added once its user was), so they are recorded unchanged, as
 * a plan records a row it finds synced. Before, every retry of the run sent them again.
 * Check-ins keep their own rules on lost answers (`settle-lost-check-ins.ts`); a delete has
 * no synced hash to match.
 */
export async function leaveSyncedAlready<T extends PlannedIntent>(
  ledger: Pick<Ledger, 'hashesOf'>,
  items: readonly T[],
): Promise<{ items: T[]; unchanged: T[] }> {
  const asked = new Map<IntentKind, string[]>();
  for (const item of items) {
    if (item.op !== 'upsert' || item.kind === 'check_in') continue;
    const keys = asked.get(item.kind);
    if (keys === undefined) asked.set(item.kind, [item.key]);
    else keys.push(item.key);
  }
  const synced = new Map<IntentKind, Map<string, string>>();
  for (const [kind, keys] of asked) synced.set(kind, await ledger.hashesOf(kind, keys));
  const kept: T[] = [];
  const unchanged: T[] = [];
  for (const item of items) {
    if (item.op === 'upsert' && synced.get(item.kind)?.get(item.key) === item.hash)
      unchanged.push({ ...item, plannedAction: 'unchanged' });
    else kept.push(item);
  }
  return { items: kept, unchanged };
}
