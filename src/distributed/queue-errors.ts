import type { Logger } from '../log/logger.js';
import { rootLogger } from '../log/logger.js';

/** How long a kind of Redis trouble, once said, stays unsaid (docs/distributed.md). */
const REPEAT_AFTER_MS = 60_000;

/**
 * When each kind of trouble was last said, for the whole process: a run or a worker holds
 * several queues (its lanes, the shared queue, the control queue), each with its own
 * connection that fails and retries on its own, and the reader wants the trouble once.
 */
const saidAt = new Map<string, number>();

/**
 * Listens to a BullMQ queue's or worker's `error` events, which BullMQ otherwise prints as
 * raw traces on every reconnection attempt: one warning line per kind of trouble in the
 * process, said again only after a minute, the connection retrying meanwhile.
 */
export function reportQueueErrors(
  emitter: { on(event: 'error', listener: (error: Error) => void): unknown },
  what: string,
  logger: Logger = rootLogger(),
  now: () => number = Date.now,
): void {
  emitter.on('error', (error: Error) => {
    const code = (error as NodeJS.ErrnoException).code;
    const kind = `${error.name}:${code ?? error.message}`;
    const said = saidAt.get(kind);
    const at = now();
    if (said !== undefined && at - said < REPEAT_AFTER_MS) return;
    saidAt.set(kind, at);
    logger.warn(
      { code, problem: error.message },
      `${what}: Redis connection trouble (${error.message}); retrying`,
    );
  });
}
