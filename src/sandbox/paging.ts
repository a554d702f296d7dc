import type { FlatParams } from '../model/params.js';
import { invalidParam } from './sandbox-http-error.js';

/** The largest `limit` the sandbox serves (docs/design.md, "our conventions"). */
export const MAX_LIMIT = 100;

/**
 * One page of a list (§8 defaults): `<kind>_page` from 1, `limit` up to 100. A page past the
 * end is empty, which is how callers know they are done.
 */
export function pageOf<T>(
  items: readonly T[],
  params: FlatParams,
  pageParam: string,
  defaultLimit: number,
): T[] {
  const page = positiveInt(params, pageParam, 1);
  const limit = Math.min(positiveInt(params, 'limit', defaultLimit), MAX_LIMIT);
  const start = (page - 1) * limit;
  return items.slice(start, start + limit);
}

function positiveInt(params: FlatParams, name: string, fallback: number): number {
  const value = params[name];
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1)
    throw invalidParam(name, 'must be a whole number from 1');
  return Number(value);
}

/** `terms` search: every word must appear in one of the given texts, case-insensitively. */
export function matchesTerms(terms: string | undefined, texts: Array<string | null>): boolean {
  if (!terms?.trim()) return true;
  const haystack = texts.filter(Boolean).join(' ').toLowerCase();
  return terms
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
}
