import type { IntentKind } from '../../model/intent.js';
import type { ResultFilter } from '../../model/result-records.js';

/** Which failed rows of a run a retry takes (`evsync retry --since/--kind/--client-id`). */
export interface RetryFilter {
  /** Only intents that failed at or after this time. */
  since?: Date;
  kinds?: IntentKind[];
  /** Keys (client_ids for users and events). */
  keys?: string[];
  /**
   * Also post the check-ins whose answer was lost and that nothing can look up (posted in
   * another user's name): the operator has checked that the platform misses them. Without
   * it they are held back, never posted twice (docs/sync-engine.md, "Lost answers").
   */
  resendUnknown?: boolean;
}

/** The failed results a retry with `filter` takes (`retryPreview` counts the same). */
export function failedResults(filter: RetryFilter): ResultFilter {
  return {
    actions: ['failed'],
    ...(filter.since ? { since: filter.since } : {}),
    ...(filter.kinds?.length ? { kinds: filter.kinds } : {}),
    ...(filter.keys?.length ? { keys: filter.keys } : {}),
  };
}

/** Whether `filter` leaves some failed rows out: a time, kinds or keys (`resendUnknown` adds, never leaves out). */
export function isFiltered(filter: RetryFilter): boolean {
  return filter.since !== undefined || !!filter.kinds?.length || !!filter.keys?.length;
}
