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
  const pageSchema = z.array(spec.item);
  let previous: string | undefined;
  for (let page = options.startPage ?? 1; ; page += 1) {
    const request: PlatformRequest = {
      method: 'GET',
      path: spec.path,
      query: {
        ...spec.query,
        [spec.pageParam]: String(page),
        ...(limit === undefined ? {} : { limit: String(limit) }),
      },
    };
    const response = await caller.send(request);
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
    yield* items;
  }
}
