import type { Ledger } from '../../ledger/ledger.js';
import type { IntentKind } from '../../model/intent.js';
import type { PlannedIntentRecord } from '../../model/planned-intent.js';

/**
 * A run's pending intents of some kinds, page by page: spans of `size` sequence numbers of
 * its plan (`span`, from `Ledger.planSpan`), each read by the primary key first. Paged by
 * `afterSeq` and a limit, the planner read the run's whole plan for each page on PostgreSQL
 * (docs/ledger.md): a page now costs the same at the end of a million-intent plan as at its
 * start. A page may be empty; other runs' intents share the sequence.
 */
export async function* pendingBySpans(
  ledger: Pick<Ledger, 'pendingIntents'>,
  runId: string,
  span: { first: number; last: number } | undefined,
  kinds: readonly IntentKind[],
  size: number,
): AsyncGenerator<PlannedIntentRecord[]> {
  if (span === undefined) return;
  for (let afterSeq = span.first - 1; afterSeq < span.last; afterSeq += size)
    yield await ledger.pendingIntents(runId, {
      kinds,
      afterSeq,
      throughSeq: Math.min(afterSeq + size, span.last),
    });
}
