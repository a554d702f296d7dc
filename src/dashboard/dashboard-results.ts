import { vendorFromEnv } from '../config/env-config.js';
import { ConfigError } from '../errors/evsync-error.js';
import type { KeyHistoryEntry, SearchFilter } from '../ledger/ledger-insights.js';
import type { Ledger } from '../ledger/ledger.js';
import { redactParams } from '../log/redaction.js';
import { INTENT_KINDS } from '../model/intent.js';
import { RESULT_ACTIONS, type IntentResultRecord } from '../model/result-records.js';
import { DEFAULT_VENDOR } from '../platform/vendor.js';
import { searchedParams as personParams } from '../sync/report/person-params.js';

/**
 * A run's results as the dashboard's pages and JSON answers show them: a page of them found
 * by status, kind, code or text, and one row with its key's history.
 */

export interface ResultsPage {
  results: IntentResultRecord[];
  /** `after` for the next page, or null on the last one. */
  next: number | null;
  /**
   * In the failed-first order, whether `next` goes on among the rows that did not fail
   * (`rest=1`): the failed ones were all shown.
   */
  rest?: boolean;
}

export interface RowData {
  result: IntentResultRecord;
  platformId: number | null;
  history: KeyHistoryEntry[];
}

/** The query of a results page: `status`, `kind`, `code` (each a comma list), `q`, `after`, `limit`. */
export interface ResultsQuery {
  status?: string | undefined;
  kind?: string | undefined;
  code?: string | undefined;
  q?: string | undefined;
  after?: string | undefined;
  limit?: string | undefined;
  /** In the failed-first order: `1` once the failed rows are all shown, `after` then counts among the rest. */
  rest?: string | undefined;
}

export const PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 500;

/** The ledger filter of a results query; a status or kind that does not exist is a usage error. */
export function parseResultsQuery(query: ResultsQuery): SearchFilter {
  const filter: SearchFilter = {};
  const actions = listOf(query.status);
  if (actions.length > 0) filter.actions = oneOfEach(actions, RESULT_ACTIONS, 'status');
  const kinds = listOf(query.kind);
  if (kinds.length > 0) filter.kinds = oneOfEach(kinds, INTENT_KINDS, 'kind');
  const codes = listOf(query.code);
  if (codes.length > 0) filter.errorCodes = codes;
  const text = query.q?.trim();
  if (text) {
    filter.text = text;
    filter.textParams = searchedParams();
  }
  if (query.after !== undefined && query.after !== '') {
    const after = Number(query.after);
    if (!Number.isSafeInteger(after) || after < 0)
      throw new ConfigError(`after=${query.after}: give the \`next\` of the previous page`);
    filter.afterSeq = after;
  }
  const limit = query.limit === undefined || query.limit === '' ? PAGE_SIZE : Number(query.limit);
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new ConfigError(`limit=${query.limit}: a whole number from 1 to ${MAX_PAGE_SIZE}`);
  filter.limit = Math.min(limit, MAX_PAGE_SIZE);
  return filter;
}

/** What `q` reads besides the key and the message (`searchedParams` of the report). */
export function searchedParams(vendor = vendorInForce()): Array<string | string[]> {
  return personParams(vendor);
}

function vendorInForce(): string {
  try {
    return vendorFromEnv();
  } catch {
    // A word a run would refuse made no results either.
    return DEFAULT_VENDOR;
  }
}

/** How long one request may spend reading windows of a text search before it answers. */
const SEARCH_BUDGET_MS = 60;
/** The first window of a request; the next ones are sized by how fast it went. */
const FIRST_WINDOW = 2500;
const MAX_WINDOW = 50_000;

/**
 * One page, keyset-paged on `seq`. A text search reads the run a window at a time, and
 * goes on reading until the page is full, the run is read to its end, or the time budget
 * is spent: then `next` says where the next request goes on (with fewer results, or none).
 * Each next window is as large as the time left allows at the pace of the last one.
 */
export async function loadResults(ledger: Ledger, runId: string, filter: SearchFilter): Promise<ResultsPage> {
  const limit = filter.limit ?? PAGE_SIZE;
  const started = performance.now();
  const insights = ledger.insights();
  let window = FIRST_WINDOW;
  let page = await insights.searchResults(runId, { window, ...filter, limit });
  const results = page.results;
  let last = performance.now() - started;
  while (filter.text && results.length < limit && page.next !== null) {
    const left = SEARCH_BUDGET_MS - (performance.now() - started);
    const fits = Math.floor((window * left) / Math.max(last, 1) / 1.25);
    if (fits < 500) break;
    window = Math.min(fits, MAX_WINDOW);
    const windowStarted = performance.now();
    page = await insights.searchResults(runId, {
      window,
      ...filter,
      afterSeq: page.next,
      limit: limit - results.length,
    });
    last = performance.now() - windowStarted;
    results.push(...page.results);
  }
  return { results: results.map(shownResult), next: page.next };
}

/**
 * Whether a page lists the failed rows first: a page a person reads (not a script's JSON,
 * which keeps `seq` order) without an action filter or a text search.
 */
export function failedFirst(query: ResultsQuery): boolean {
  return !query.status && !query.q?.trim();
}

const NOT_FAILED = RESULT_ACTIONS.filter((action) => action !== 'failed');

/**
 * One page in the failed-first order: the run's failed rows in `seq` order, then the others
 * from the start, each part keyset-paged on `seq`; `rest` says which part `next` is in.
 */
export async function loadResultsFailedFirst(
  ledger: Ledger,
  runId: string,
  filter: SearchFilter,
  rest: boolean,
): Promise<ResultsPage> {
  const limit = filter.limit ?? PAGE_SIZE;
  if (rest) {
    const page = await loadResults(ledger, runId, { ...filter, actions: NOT_FAILED });
    return { ...page, rest: page.next !== null };
  }
  const failed = await loadResults(ledger, runId, { ...filter, actions: ['failed'] });
  if (failed.next !== null) return failed;
  const left = limit - failed.results.length;
  const others = await loadResults(ledger, runId, {
    ...filter,
    actions: NOT_FAILED,
    afterSeq: 0,
    limit: Math.max(left, 1),
  });
  if (left <= 0) return { results: failed.results, next: others.results.length > 0 ? 0 : null, rest: true };
  return { results: [...failed.results, ...others.results], next: others.next, rest: others.next !== null };
}

export async function loadRow(
  ledger: Ledger,
  runId: string,
  kind: string,
  key: string,
): Promise<RowData | undefined> {
  const [intentKind] = oneOfEach([kind], INTENT_KINDS, 'kind');
  if (intentKind === undefined) return undefined;
  const [found] = await ledger.results(runId, { kinds: [intentKind], keys: [key], limit: 1 });
  if (!found) return undefined;
  const [platformId, history] = await Promise.all([
    found.platformId ?? ledger.getPlatformId(intentKind, key),
    ledger.insights().keyHistory(intentKind, key),
  ]);
  return {
    result: shownResult(found),
    platformId: platformId ?? null,
    history: history.map((entry) => ({ ...entry, result: shownResult(entry.result) })),
  };
}

/** The ledger stores params redacted already; redacted again here, in case an older row was not. */
function shownResult(result: IntentResultRecord): IntentResultRecord {
  return { ...result, params: redactParams(result.params) };
}

function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

function oneOfEach<T extends string>(values: string[], allowed: readonly T[], name: string): T[] {
  const unknown = values.filter((value) => !(allowed as readonly string[]).includes(value));
  if (unknown.length > 0) throw new ConfigError(`${name}=${unknown.join(',')}: use ${allowed.join(', ')}`);
  return values as T[];
}
