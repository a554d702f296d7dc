import type { Ledger } from '../../ledger/ledger.js';
import type { PlannedIntent } from '../../model/planned-intent.js';

type Mark = Pick<PlannedIntent, 'kind' | 'key'>;
interface Waiting {
  mark: Mark;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * `Ledger.markSendStarted` for one intent at a time, as processors call it. Calls that
 * arrive while a write is under way share the next write, so concurrent check-ins cost
 * one round trip per batch instead of one each, and each still waits for its own mark.
 */
export function createSendMarker(
  ledger: Pick<Ledger, 'markSendStarted'>,
  runId: string,
): (item: Mark) => Promise<void> {
  let waiting: Waiting[] = [];
  let writing = false;

  const writeAll = async (): Promise<void> => {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        await ledger.markSendStarted(
          runId,
          batch.map(({ mark }) => ({ kind: mark.kind, key: mark.key })),
        );
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    writing = false;
  };

  return (mark) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ mark, resolve, reject });
      if (!writing) void writeAll();
    });
}
