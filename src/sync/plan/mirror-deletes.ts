import type { IntentKind } from '../../mapping/intent.js';
import type { PlannedIntent } from '../../ledger/ledger.js';
import type { DeleteThreshold } from '../job-file.js';
import { allowedDeletes } from '../job-file.js';
import { DeleteThresholdError } from './delete-threshold-error.js';
import type { DeleteCount } from './sync-plan.js';

/**
 * Kinds that mirror mode may delete. Check-ins cannot be removed through the API, and a
 * schedule "delete" clears the user's schedule.
 */
export const DELETABLE_KINDS: readonly IntentKind[] = [
  'user',
  'event',
  'speaker',
  'schedule',
  'rsvp',
  'contact',
];

export interface MirrorDeleteInput {
  /** Keys of this run per kind. Only kinds the run produced are mirrored: an empty feed deletes nothing. */
  seen: ReadonlyMap<IntentKind, ReadonlySet<string>>;
  knownKeys: (kind: IntentKind) => Promise<readonly string[]>;
  threshold: DeleteThreshold;
  force: boolean;
}

export interface MirrorDeletes {
  deletes: PlannedIntent[];
  counts: DeleteCount[];
}

/**
 * What the ledger knows and the source no longer has. Checked per kind against
 * `delete_threshold`, so that a truncated users.csv cannot hide behind a complete
 * sessions.csv; any kind over it aborts the whole run before a single call.
 */
export async function planMirrorDeletes(input: MirrorDeleteInput): Promise<MirrorDeletes> {
  const deletes: PlannedIntent[] = [];
  const counts: DeleteCount[] = [];
  for (const kind of DELETABLE_KINDS) {
    const seen = input.seen.get(kind);
    if (!seen) continue;
    const known = await input.knownKeys(kind);
    const gone = known.filter((key) => !seen.has(key));
    counts.push({
      kind,
      deletes: gone.length,
      known: known.length,
      allowed: allowedDeletes(input.threshold, known.length),
    });
    for (const key of gone) deletes.push(deleteIntent(kind, key));
  }
  const over = counts.filter((c) => c.deletes > c.allowed);
  if (over.length > 0 && !input.force)
    throw new DeleteThresholdError(over, describeThreshold(input.threshold));
  return { deletes, counts };
}

export function describeThreshold(threshold: DeleteThreshold): string {
  return 'percent' in threshold ? `${threshold.percent}%` : `${threshold.count} objects`;
}

function deleteIntent(kind: IntentKind, key: string): PlannedIntent {
  return {
    kind,
    key,
    op: 'remove',
    plannedAction: 'delete',
    params: {},
    origin: null,
    dependsOn: [],
    hash: '',
  };
}
