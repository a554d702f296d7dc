import { CODE } from '../../errors/codes.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import type { RunRecord } from '../../model/run-record.js';
import { CHECK_IN_OUTCOME_UNKNOWN } from '../processors/check-in-processor.js';
import type { RowResult } from './sync-plan.js';
import { isKeyOwners } from './key-owners-check-in.js';

/** The plan's code for such a check-in in every later run, until an operator retries it. */
export const CHECK_IN_HELD_BACK = CODE.EVSYNC_CHECK_IN_HELD_BACK;

/**
 * How many recent runs (of any job) are searched for a check-in's last failure. Every run
 * that holds a check-in back records that again, so the newest failure of a check-in that
 * stays in its source is always in the last run of its job; only a row that left the
 * source for this many runs and came back is sent again.
 */
export const RUNS_SEARCHED = 100;

/**
 * Where a held-back check-in's answer was lost: the run to `evsync retry`, when still
 * searched. `unanswered`: that run had marked it as being sent and had no result for it
 * when this was read (cut off, or still going); otherwise its result says the answer was lost.
 */
export type LostIn = { runId: string; unanswered?: boolean } | { runId: undefined };

/**
 * For each check-in key, whether its newest failure says its answer was lost
 * (`EVSYNC_CHECK_IN_OUTCOME_UNKNOWN`, or held back since), and in which run the answer was
 * lost. A check-in that succeeded since has a synced hash and is never asked about; one
 * whose newest failure is anything else was refused by the platform and is sent again.
 *
 * The ledger has no query for the newest result of a key across runs, so this reads the
 * failed check-in results of recent runs, newest first, skipping finished runs with no
 * failure at all (their counts say so).
 */
export async function findLostCheckIns(
  ledger: Pick<Ledger, 'listRuns' | 'results' | 'pendingIntents'> & Partial<Pick<Ledger, 'conference'>>,
  keys: Iterable<string>,
  runsSearched = RUNS_SEARCHED,
  /**
   * The run whose lost answers an operator asked to send (a retry or resume of it): those,
   * and later holds that trace back to them, are settled, not lost.
   */
  ownRunId?: string,
): Promise<Map<string, LostIn>> {
  const undecided = new Set(keys);
  const lost = new Map<string, LostIn>();
  /** Held back in a later run: the run that lost the answer is further back. */
  const seekingOrigin = new Set<string>();
  if (undecided.size === 0) return lost;
  // Check-ins lost on another conference are that conference's: only this one's runs count.
  const conferenceId = ledger.conference?.id;
  for (const run of await ledger.listRuns(runsSearched, conferenceId === undefined ? {} : { conferenceId })) {
    if (undecided.size === 0 && seekingOrigin.size === 0) break;
    const { lostHere, unansweredHere, heldHere, refusedHere } = await lossesIn(ledger, run);
    const unanswered = new Set(unansweredHere);
    for (const key of [...unansweredHere, ...lostHere]) {
      if (run.id === ownRunId) {
        if (undecided.delete(key) || seekingOrigin.delete(key)) lost.delete(key);
      } else if (undecided.delete(key) || seekingOrigin.delete(key)) {
        lost.set(key, unanswered.has(key) ? { runId: run.id, unanswered: true } : { runId: run.id });
      }
    }
    for (const key of heldHere) {
      if (!undecided.delete(key)) continue;
      lost.set(key, { runId: undefined });
      seekingOrigin.add(key);
    }
    // The newest failure decides: one the platform refused was sent since, not lost.
    for (const key of refusedHere) undecided.delete(key);
  }
  return lost;
}

/**
 * Check-ins whose answer a run lost (a failed `EVSYNC_CHECK_IN_OUTCOME_UNKNOWN`, or, in a
 * run cut off and not resumed yet, a send mark without a result), those it held back, and
 * those whose POST the platform refused (any other failure).
 */
async function lossesIn(
  ledger: Pick<Ledger, 'results' | 'pendingIntents'>,
  run: RunRecord,
): Promise<{ lostHere: string[]; unansweredHere: string[]; heldHere: string[]; refusedHere: string[] }> {
  const lostHere: string[] = [];
  const unansweredHere: string[] = [];
  const heldHere: string[] = [];
  const refusedHere: string[] = [];
  if (run.status !== 'completed') {
    for (const record of await ledger.pendingIntents(run.id, { kinds: ['check_in'], sendStarted: true }))
      unansweredHere.push(record.key);
  }
  // Finished runs without failures have nothing to say (their counts tell).
  if (run.finishedAt !== null && !run.counts.failed)
    return { lostHere, unansweredHere, heldHere, refusedHere };
  for (const failure of await ledger.results(run.id, { kinds: ['check_in'], actions: ['failed'] })) {
    if (failure.errorCode === CHECK_IN_OUTCOME_UNKNOWN) lostHere.push(failure.key);
    else if (failure.errorCode === CHECK_IN_HELD_BACK) heldHere.push(failure.key);
    else refusedHere.push(failure.key);
  }
  return { lostHere, unansweredHere, heldHere, refusedHere };
}

/**
 * Takes out of `work` every check-in to be created whose answer was lost in an earlier run
 * (§4.1 has nothing to look a check-in up by, so a second POST could be a second
 * check-in), and answers a `failed` result for each that tells the operator what to check
 * and which `evsync retry` sends it.
 */
export async function holdBackLostCheckIns(
  ledger: Pick<Ledger, 'listRuns' | 'results' | 'pendingIntents'> & Partial<Pick<Ledger, 'conference'>>,
  work: PlannedIntent[],
  /** See `findLostCheckIns`: the run a resume or a retry finishes. */
  ownRunId?: string,
): Promise<{ work: PlannedIntent[]; held: RowResult[] }> {
  const lost = await findLostCheckIns(
    ledger,
    work.filter(isCheckInCreate).map((item) => item.key),
    RUNS_SEARCHED,
    ownRunId,
  );
  if (lost.size === 0) return { work, held: [] };
  const held: RowResult[] = [];
  const kept: PlannedIntent[] = [];
  for (const item of work) {
    const lostIn = isCheckInCreate(item) ? lost.get(item.key) : undefined;
    if (lostIn === undefined) kept.push(item);
    else held.push(heldResult(item, lostIn));
  }
  return { work: kept, held };
}

function isCheckInCreate(item: PlannedIntent): boolean {
  return item.kind === 'check_in' && item.plannedAction === 'create';
}

function heldResult(item: PlannedIntent, lostIn: LostIn): RowResult {
  const why =
    lostIn.runId === undefined
      ? `the answer to this check-in was lost in a run older than the last ${RUNS_SEARCHED} (find it with \`evsync report RUN --status failed\`)`
      : 'unanswered' in lostIn && lostIn.unanswered === true
        ? `run ${lostIn.runId} had started sending this check-in and had no answer recorded for it when this run planned (that run was cut off, or was still going)`
        : `the answer to this check-in was lost in run ${lostIn.runId}`;
  // The key owner's own check-ins are looked up by a retry; another user's only the operator can check.
  const force = isKeyOwners(item) ? '' : ' --resend-unknown';
  const retry =
    lostIn.runId === undefined
      ? `\`evsync retry RUN --client-id <key>${force}\``
      : `\`evsync retry ${lostIn.runId} --client-id ${item.key}${force}\``;
  return {
    kind: item.kind,
    key: item.key,
    action: 'failed',
    origin: item.origin,
    errorCode: CHECK_IN_HELD_BACK,
    message:
      `Not sent: ${why}, so the platform may have it already and a second POST would be a second check-in. ` +
      `Check the platform: if it is missing, send it with ${retry}; if it is there, leave it (it stays held back) or drop the row from the source.`,
    params: item.params,
  };
}

export const CHECK_IN_POSTED_SINCE = CODE.EVSYNC_CHECK_IN_POSTED_SINCE;

/**
 * What a resume or a retry, which send outside a plan, must hold back as the plan does:
 * check-ins to create that another run has posted since (they have a synced hash now) and
 * those whose answer another run lost. `ownRunId` is the run being finished or retried:
 * its own lost answers are the operator's to send.
 */
export async function guardCheckIns(
  ledger: Pick<Ledger, 'listRuns' | 'results' | 'pendingIntents' | 'hashesOf'> &
    Partial<Pick<Ledger, 'conference'>>,
  work: PlannedIntent[],
  ownRunId: string,
): Promise<{ work: PlannedIntent[]; held: RowResult[] }> {
  const creates = work.filter(isCheckInCreate);
  if (creates.length === 0) return { work, held: [] };
  // The hashes of these check-ins only: a resume guards its work page by page.
  const posted = await ledger.hashesOf(
    'check_in',
    creates.map((item) => item.key),
  );
  const unposted: PlannedIntent[] = [];
  const held: RowResult[] = [];
  for (const item of work) {
    if (isCheckInCreate(item) && posted.has(item.key)) held.push(postedSince(item));
    else unposted.push(item);
  }
  const guarded = await holdBackLostCheckIns(ledger, unposted, ownRunId);
  return { work: guarded.work, held: [...held, ...guarded.held] };
}

/** A check-in another run (a retry, the job run again) has posted since: not posted again. */
export function postedSince(item: Pick<PlannedIntent, 'kind' | 'key' | 'origin' | 'params'>): RowResult {
  return {
    kind: item.kind,
    key: item.key,
    action: 'skipped',
    origin: item.origin,
    errorCode: CHECK_IN_POSTED_SINCE,
    message: 'Not sent: another run (a retry, or the job run again) has posted this check-in since.',
    params: item.params,
  };
}
