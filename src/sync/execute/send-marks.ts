import type { Ledger } from '../../ledger/ledger.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { coalescedWrites } from './coalesced-calls.js';

type Mark = Pick<PlannedIntent, 'kind' | 'key'>;

/**
 * `Ledger.markSendStarted` for one intent at a time, as processors call it: concurrent
 * check-ins share a write, and each still waits for its own mark.
 */
export function createSendMarker(
  ledger: Pick<Ledger, 'markSendStarted'>,
  runId: string,
): (item: Mark) => Promise<void> {
  return coalescedWrites((marks: Mark[]) =>
    ledger.markSendStarted(
      runId,
      marks.map(({ kind, key }) => ({ kind, key })),
    ),
  );
}
