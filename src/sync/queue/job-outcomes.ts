/**
 * How a handler of the BullMQ queue says what should become of a job it could not finish
 * (docs/distributed.md, "The queue adapter"). Any other error fails the job at once, as a
 * throwing handler does in the inline queue.
 */

/** Worth another try later: BullMQ tries again with exponential backoff and jitter. */
export class RetryLater extends Error {
  override readonly name = 'RetryLater';
  /** The least wait before the next try (a `Retry-After`), if the cause named one. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: { retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** No try will succeed: the job fails now, without spending its remaining attempts. */
export class PermanentFailure extends Error {
  override readonly name = 'PermanentFailure';

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

/**
 * The platform answered 429: the whole queue pauses for `waitMs` on every worker, and the
 * job goes back to wait without counting as an attempt.
 */
export class RateLimited extends Error {
  override readonly name = 'RateLimited';

  constructor(
    readonly waitMs: number,
    options: { cause?: unknown } = {},
  ) {
    super(
      `rate limited: the queue pauses for ${waitMs} ms`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
  }
}
