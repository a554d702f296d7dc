import { noteIntentResults } from '../metrics/process-metrics.js';

/**
 * Adds recorded results to `evsync_intents_total`, one increment per kind and action.
 * Counted in a map per action, not by a `kind + action` string: every unchanged row of a
 * night passes here.
 */
export function countIntents<T extends { kind: string }>(
  items: readonly T[],
  actionOf: (item: T) => string,
): void {
  const counts = new Map<string, Map<string, number>>();
  for (const item of items) {
    const action = actionOf(item);
    let ofAction = counts.get(action);
    if (ofAction === undefined) counts.set(action, (ofAction = new Map<string, number>()));
    ofAction.set(item.kind, (ofAction.get(item.kind) ?? 0) + 1);
  }
  for (const [action, kinds] of counts) for (const [kind, n] of kinds) noteIntentResults(kind, action, n);
}
