import type { Logger } from '../../log/logger.js';

/** Deliveries this process started and has not finished (`retry.deadline` bounds each). */
const pending = new Set<Promise<unknown>>();

/**
 * Sends a run's notice after the run, not within it: the run's end releases the job's lock
 * at once, so that a receiver that hangs never holds the job (a second run, a scheduled
 * tick), and the delivery finishes here meanwhile (docs/notifications.md, "When a message
 * cannot be delivered"). The process waits for it before it closes its ledger
 * (`deliveriesSettled`).
 */
export function deliverInBackground(delivery: () => Promise<unknown>, logger?: Logger): void {
  const sending: Promise<unknown> = delivery()
    .catch((error: unknown) =>
      logger?.warn(
        { error: error instanceof Error ? error.message : String(error) },
        'notification not delivered',
      ),
    )
    .finally(() => pending.delete(sending));
  pending.add(sending);
}

/**
 * Resolves once every delivery started in the background has ended: the ledger must stay
 * open until each is recorded. Each is bounded by its `retry.deadline`, so this is too.
 */
export async function deliveriesSettled(): Promise<void> {
  while (pending.size > 0) await Promise.all([...pending]);
}
