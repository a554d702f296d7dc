import { CODE } from '../../errors/codes.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { type IntentResultInput, type ResultAction, SUCCESS_ACTIONS } from '../../model/result-records.js';
import type { ProcessOutcome } from '../processors/process-outcome.js';
import type { RowResult } from '../plan/sync-plan.js';

const successes: ReadonlySet<ResultAction> = new Set(SUCCESS_ACTIONS);

export function isSuccess(action: ResultAction): boolean {
  return successes.has(action);
}

/** The ledger row of a processed intent. The hash travels only with a success. */
export function intentResult(
  runId: string,
  item: PlannedIntent,
  outcome: ProcessOutcome,
  durationMs: number,
): IntentResultInput {
  return {
    runId,
    kind: item.kind,
    key: item.key,
    action: outcome.action,
    origin: item.origin,
    platformId: outcome.platformId ?? null,
    httpStatus: outcome.httpStatus ?? null,
    // A success without some optional fields says which (docs/mapping.md, "Optional fields").
    errorCode: outcome.errorCode ?? (leftOut(item, outcome) ? CODE.MAPPING_FIELD_LEFT_OUT : null),
    errorMessage: outcome.message ?? (leftOut(item, outcome) ? item.warnings!.join('; ') : null),
    attempts: outcome.attempts,
    durationMs: Math.round(durationMs),
    params: item.params,
    hash: isSuccess(outcome.action) ? (outcome.hash ?? item.hash) : null,
    // Those the account holds: an alias the platform refused is another user's.
    ...(item.aliases ? { aliases: outcome.aliases ?? item.aliases } : {}),
  };
}

function leftOut(item: PlannedIntent, outcome: ProcessOutcome): boolean {
  return item.warnings !== undefined && item.warnings.length > 0 && isSuccess(outcome.action);
}

/** An intent whose params match what was last synced: no call. */
export function unchangedResult(
  runId: string,
  item: PlannedIntent,
  platformId: number | undefined,
): IntentResultInput {
  return {
    runId,
    kind: item.kind,
    key: item.key,
    action: 'unchanged',
    origin: item.origin,
    platformId: platformId ?? null,
    attempts: 0,
    durationMs: 0,
    params: item.params,
    hash: item.hash,
    ...(item.aliases ? { aliases: item.aliases } : {}),
  };
}

/** A row that never became work (invalid, skipped by the mapping, duplicate). */
export function rowResult(runId: string, row: RowResult): IntentResultInput {
  return {
    runId,
    kind: row.kind,
    key: row.key,
    action: row.action,
    origin: row.origin,
    errorCode: row.errorCode,
    errorMessage: row.message,
    attempts: 0,
    durationMs: 0,
    params: row.params ?? {},
  };
}
