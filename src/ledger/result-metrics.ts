import { noteIntentResults } from '../metrics/process-metrics.js';

/**
 * Adds recorded results to `evsync_intents_total`. Noted one by one into the metrics'
 * tally (a map per action, not a `kind + action` string: every unchanged row of a night
 * passes here), which a scrape hands to the counter.
 */
export function countIntents<T extends { kind: string }>(
  items: readonly T[],
  actionOf: (item: T) => string,
): void {
  for (const item of items) noteIntentResults(item.kind, actionOf(item), 1);
}
