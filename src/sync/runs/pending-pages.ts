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

/** One read of {@link pagesAfterSeq}: at most `limit` rows after `afterSeq` (from the start without). */
export interface SeqPage {
  limit: number;
  afterSeq?: number;
}

/**
 * Pages of what `read` answers after the last `seq` of the page before, at most `size` each,
 * until one comes back short: for reads that take `afterSeq` and a limit (planned intents by
 * their result). Such a read orders by `seq` behind its filter, so it suits the few rows a
 * filter picks (failed ones), not a run's whole plan (see `pendingBySpans`).
 */
export async function* pagesAfterSeq<T extends { seq: number }>(
  read: (page: SeqPage) => Promise<T[]>,
  size: number,
): AsyncGenerator<T[]> {
  let afterSeq: number | undefined;
  for (;;) {
    const page = await read({ limit: size, ...(afterSeq === undefined ? {} : { afterSeq }) });
    if (page.length > 0) yield page;
    if (page.length < size) return;
    afterSeq = page[page.length - 1]!.seq;
  }
}
