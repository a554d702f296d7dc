import { z } from 'zod';
import type { FlatParams } from '../model/params.js';
import type { PlatformCaller } from './platform-caller.js';
import { parseBody } from './platform-caller.js';
import { PlatformResponseError } from './platform-error.js';
import type { PlatformRequest } from './platform-request.js';

export interface ListOptions {
  /**
   * Records per page; the platform caps it at 100 (docs/design.md, "our conventions").
   * @defaultValue the platform's default for the resource (§8)
   */
  limit?: number;
  /** @defaultValue 1 */
  startPage?: number;
  /**
   * Pages asked for at once, ahead of the one being read. The platform gives no totals
   * (§8), so reading ahead costs up to `ahead - 1` empty pages past the end; it pays when
   * a page's latency is longer than the rate limit's interval, where one page at a time
   * could never reach the rate (docs/audit.md, "Memory and calls"). Pages still come out
   * in order, and at most `ahead` pages are held. The window starts at one page and doubles
   * after each full page, so a short list costs no more calls than one page at a time.
   * @defaultValue 1 (one page at a time)
   */
  ahead?: number;
}

export interface PageSpec<T> {
  path: string;
  /** `user_page`, `event_page`, `speaker_page`, `comment_page`. */
  pageParam: string;
  query?: FlatParams;
  item: z.ZodType<T>;
}

export const MAX_PAGE_LIMIT = 100;

/**
 * Reads pages from `startPage` until an empty one (the platform gives no totals). A page
 * that repeats the previous one means the platform ignored the page param; that is an
 * error rather than an endless loop.
 */
export async function* paginate<T>(
  caller: PlatformCaller,
  spec: PageSpec<T>,
  options: ListOptions = {},
): AsyncGenerator<T, void, undefined> {
  const limit = options.limit;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT)) {
    throw new RangeError(`limit must be an integer from 1 to ${MAX_PAGE_LIMIT}, got ${limit}`);
  }
  const ahead = options.ahead ?? 1;
  if (!Number.isInteger(ahead) || ahead < 1)
    throw new RangeError(`ahead must be an integer ≥ 1, got ${ahead}`);
  const pageSchema = z.array(spec.item);
  const requestOf = (page: number): PlatformRequest => ({
    method: 'GET',
    path: spec.path,
    query: {
      ...spec.query,
      [spec.pageParam]: String(page),
      ...(limit === undefined ? {} : { limit: String(limit) }),
    },
  });
  const inFlight: Array<{
    page: number;
    request: PlatformRequest;
    response: ReturnType<PlatformCaller['send']>;
  }> = [];
  let nextPage = options.startPage ?? 1;
  const askNext = (): void => {
    const request = requestOf(nextPage);
    const response = caller.send(request);
    // Awaited in turn below; a page asked ahead that fails after the end must not go unhandled.
    response.catch(() => undefined);
    inFlight.push({ page: nextPage, request, response });
    nextPage += 1;
  };
  let previous: string | undefined;
  let window = 1;
  try {
    for (;;) {
      while (inFlight.length < window) askNext();
      const { page, request, response: pending } = inFlight.shift()!;
      const response = await pending;
      const items = parseBody(request, response, pageSchema);
      if (items.length === 0) return;
      const fingerprint = response.body;
      if (fingerprint === previous) {
        throw new PlatformResponseError(
          { method: 'GET', path: spec.path },
          response.status,
          `page ${page} repeats page ${page - 1}; the platform seems to ignore ${spec.pageParam}`,
        );
      }
      previous = fingerprint;
      // A short page is most likely the last: ask no further ahead than the empty page.
      const full = limit === undefined || items.length >= limit;
      window = full ? Math.min(ahead, window * 2) : 1;
      yield* items;
    }
  } finally {
    // No request outlives the listing (the client may be closed right after it).
    await Promise.allSettled(inFlight.map((entry) => entry.response));
  }
}
