import { CODE } from '../../errors/codes.js';
import { EvsyncError, messageOf } from '../../errors/evsync-error.js';

/** The platform could not be read back: the audit compared nothing (exit 3). */
export class AuditReadError extends EvsyncError {
  override readonly name = 'AuditReadError';
  constructor(what: string, cause: unknown) {
    super(`Could not read ${what} back from the platform: ${messageOf(cause)}. Nothing was compared.`, {
      code: CODE.EVSYNC_AUDIT_READ_FAILED,
      retryable: cause instanceof EvsyncError && cause.retryable,
      cause,
    });
  }
}

/** `pages`, with any failure to read them as an {@link AuditReadError}. */
export async function* readBack<T>(what: string, pages: AsyncIterable<T>): AsyncGenerator<T> {
  const iterator = pages[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<T>;
    try {
      next = await iterator.next();
    } catch (error) {
      throw new AuditReadError(what, error);
    }
    if (next.done) return;
    yield next.value;
  }
}
