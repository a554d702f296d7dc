import type { PlannedIntent, PlannedIntentRecord } from '../../model/planned-intent.js';
import type { IntentResultInput } from '../../model/result-records.js';
import type { RunRecord } from '../../model/run-record.js';
import type { EngineDeps } from '../execute/engine-deps.js';
import { CHECK_IN_HELD_BACK } from '../plan/lost-check-ins.js';
import type { RowResult } from '../plan/sync-plan.js';
import { CHECK_IN_OUTCOME_UNKNOWN } from '../processors/check-in-processor.js';
import { isKeyOwners } from '../plan/key-owners-check-in.js';
import { lookUpLostCheckIns, type LostCheckIn } from './lost-check-in-lookup.js';

/** What a retry does with the check-ins of the retried run whose answer was lost. */
export interface SettledCheckIns {
  /** What to send: the rest of the retry's work, and lost check-ins known to be missing. */
  work: PlannedIntent[];
  /** Found on the platform: recorded as created (with their id and hash), not posted. */
  found: Array<Omit<IntentResultInput, 'runId'>>;
  /** Nothing can tell whether the platform has them, and `--resend-unknown` was not given. */
  held: RowResult[];
}

/**
 * A retry's check-ins whose answer the retried run lost (`EVSYNC_CHECK_IN_OUTCOME_UNKNOWN`,
 * or marked as being sent in a run cut off): the platform may have recorded them, and
 * §4.1 gives check-ins no client_id, so posting them again may post them twice. What can
 * be known is looked up (`lookUpLostCheckIns`): found → recorded as created, missing →
 * sent. The rest is held back unless `resendUnknown` (the operator checked the platform).
 */
export async function settleLostCheckIns(
  deps: Pick<EngineDeps, 'ledger' | 'platform' | 'logger'>,
  base: RunRecord,
  retried: readonly PlannedIntentRecord[],
  work: PlannedIntent[],
  resendUnknown: boolean,
): Promise<SettledCheckIns> {
  const { ledger } = deps;
  const candidates = work.filter((item) => item.kind === 'check_in' && item.plannedAction === 'create');
  if (candidates.length === 0) return { work, found: [], held: [] };
  const records = new Map(retried.filter((r) => r.kind === 'check_in').map((r) => [r.key, r]));
  const failures = new Map(
    (
      await ledger.results(base.id, {
        kinds: ['check_in'],
        actions: ['failed'],
        errorCodes: [CHECK_IN_OUTCOME_UNKNOWN],
        keys: candidates.map((item) => item.key),
      })
    ).map((failure) => [failure.key, failure.recordedAt]),
  );
  const now = new Date();
  const lost: LostCheckIn[] = [];
  for (const item of candidates) {
    const record = records.get(item.key);
    const cutOff = record?.sendStartedAt != null && !failures.has(item.key);
    if (!failures.has(item.key) && !cutOff) continue;
    lost.push({
      item,
      sentFrom: record?.sendStartedAt ?? base.startedAt,
      sentBy: failures.get(item.key) ?? now,
    });
  }
  if (lost.length === 0) return { work, found: [], held: [] };
  // Check-ins the ledger knows are someone's POST already, not a lost one's.
  const known = new Set<number>();
  for await (const result of ledger.eachResult(base.id, { kinds: ['check_in'], actions: ['created'] }))
    if (result.platformId !== null) known.add(result.platformId);
  const lookup = await lookUpLostCheckIns(deps.platform, lost, known);
  const held = resendUnknown ? [] : lookup.unknowable.map((item) => heldBack(item, base.id));
  const notSent = new Set<PlannedIntent>([
    ...lookup.found.keys(),
    ...(resendUnknown ? [] : lookup.unknowable),
  ]);
  deps.logger?.info(
    {
      lost: lost.length,
      found: lookup.found.size,
      missing: lookup.absent.length,
      unknowable: lookup.unknowable.length,
      resendUnknown,
    },
    'check-ins whose answer was lost: looked up where the platform lists them',
  );
  return {
    work: work.filter((item) => !notSent.has(item)),
    found: [...lookup.found].map(([item, platformId]) => ({
      kind: item.kind,
      key: item.key,
      action: 'created',
      origin: item.origin,
      platformId,
      attempts: 0,
      errorMessage: `Not posted again: the platform has it (check-in ${platformId}, listed by GET /check_in/my), so the POST whose answer run ${base.id} lost was recorded.`,
      params: item.params,
      hash: item.hash,
    })),
    held,
  };
}

/** Held back by a retry: nothing can tell whether the platform has it. */
function heldBack(item: PlannedIntent, runId: string): RowResult {
  return {
    kind: item.kind,
    key: item.key,
    action: 'failed',
    origin: item.origin,
    errorCode: CHECK_IN_HELD_BACK,
    message:
      `Not sent: the answer to this check-in was lost in run ${runId}, so the platform may have it, and nothing can tell: ` +
      (isKeyOwners(item)
        ? 'the key owner\u2019s check-ins (GET /check_in/my) could not be read to the end, or did not show enough to tell. '
        : 'it was posted in another user\u2019s name, and §4.1 lets a caller list only its own check-ins (GET /check_in/my) and gives check-ins no client_id. ') +
      'A second POST would be a second check-in. Check the platform (the user\u2019s check-ins); if it is missing, post it with ' +
      `\`evsync retry ${runId} --client-id ${item.key} --resend-unknown\`, or all such check-ins of the run with \`evsync retry ${runId} --kind check_in --resend-unknown\`.`,
    params: item.params,
  };
}
