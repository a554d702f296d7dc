import type { Logger } from '../log/logger.js';
import { rootLogger } from '../log/logger.js';

/**
 * Listens to a BullMQ queue's or worker's `error` events, which BullMQ otherwise prints as
 * raw traces on every reconnection attempt: one warning line per kind of trouble (a new
 * line only when it changes), the connection retrying meanwhile.
 */
export function reportQueueErrors(
  emitter: { on(event: 'error', listener: (error: Error) => void): unknown },
  what: string,
  logger: Logger = rootLogger(),
): void {
  let last: string | undefined;
  emitter.on('error', (error: Error) => {
    const code = (error as NodeJS.ErrnoException).code;
    const kind = `${error.name}:${code ?? error.message}`;
    if (kind === last) return;
    last = kind;
    logger.warn(
      { code, problem: error.message },
      `${what}: Redis connection trouble (${error.message}); retrying`,
    );
  });
}
