import type { Ledger } from '../../ledger/ledger.js';
import type { IntentResultRecord, ResultAction } from '../../model/result-records.js';
import type { IntentKind } from '../../model/intent.js';
import { conferenceHost } from '../../model/conference.js';
import { csvLine } from '../../report/csv-cell.js';
import type { SearchFilter } from '../../ledger/ledger-insights.js';
import { DEFAULT_VENDOR } from '../../platform/vendor.js';
import { personOf, searchedParams } from './person-params.js';
import { tableHeader, tableLine } from './report-table.js';

/** `table`: aligned lines for a person at a terminal, long cells wrapped within `width`. */
export const REPORT_FORMATS = ['csv', 'json', 'table'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export interface ReportOptions {
  format: ReportFormat;
  actions?: ResultAction[];
  kinds?: IntentKind[];
  /** Only results with one of these error codes. */
  errorCodes?: readonly string[];
  /**
   * Only results that hold this text (without case) in their key, message, name or e-mail
   * (`searchedParams`): how an operator finds a person's rows.
   */
  search?: string;
  /** The vendor word of e-mail params (`EVSYNC_VENDOR`). @defaultValue `svc` */
  vendor?: string;
  /** The width of a `table` line. @defaultValue 120 */
  width?: number;
}

const COLUMNS = [
  'run_id',
  'conference',
  'kind',
  'key',
  'action',
  'source',
  'row',
  'line',
  'platform_id',
  'http_status',
  'error_code',
  'message',
  'attempts',
  'duration_ms',
  'recorded_at',
  'name',
  'email',
] as const;

/** One line per intent result, streamed from the ledger (bounded memory however big the run). */
export async function writeReport(
  ledger: Ledger,
  runId: string,
  options: ReportOptions,
  write: (chunk: string) => void | Promise<void>,
): Promise<number> {
  let count = 0;
  // Every row names the conference its run wrote to, by host: a report read on its own says where.
  const run = await ledger.getRun(runId);
  const conference = run?.conference ? conferenceHost(run.conference.baseUrl) : null;
  const filter = {
    ...(options.actions?.length ? { actions: options.actions } : {}),
    ...(options.kinds?.length ? { kinds: options.kinds } : {}),
    ...(options.errorCodes?.length ? { errorCodes: options.errorCodes } : {}),
  };
  const width = options.width ?? 120;
  if (options.format === 'csv') await write(csvLine(COLUMNS));
  else if (options.format === 'table') await write(tableHeader(width));
  else await write('[\n');
  const vendor = options.vendor ?? DEFAULT_VENDOR;
  const results = options.search
    ? searched(ledger, runId, { ...filter, text: options.search, textParams: searchedParams(vendor) })
    : ledger.eachResult(runId, filter);
  for await (const result of results) {
    const row = reportRow(result, conference, vendor);
    if (options.format === 'csv') await write(csvLine(COLUMNS.map((column) => row[column])));
    else if (options.format === 'table') await write(tableLine(row, width));
    else {
      // Distributed runs name the worker process of each row (docs/distributed.md).
      const worker = result.worker === null ? {} : { worker: result.worker };
      await write(
        `${count === 0 ? '' : ',\n'}${JSON.stringify({ ...row, ...worker, params: result.params })}`,
      );
    }
    count += 1;
  }
  if (options.format === 'json') await write(count === 0 ? ']\n' : '\n]\n');
  return count;
}

/** The results of a text search, page after page (a search reads the run a window at a time). */
async function* searched(
  ledger: Ledger,
  runId: string,
  filter: SearchFilter,
): AsyncGenerator<IntentResultRecord> {
  let afterSeq = 0;
  for (;;) {
    const page = await ledger.insights().searchResults(runId, { ...filter, afterSeq, limit: 1000 });
    yield* page.results;
    if (page.next === null) return;
    afterSeq = page.next;
  }
}

function reportRow(
  result: IntentResultRecord,
  conference: string | null,
  vendor: string,
): Record<(typeof COLUMNS)[number], string | number | null> {
  // The name and e-mail the row had (params are stored redacted: never a password).
  const person = personOf(result.params, vendor);
  return {
    run_id: result.runId,
    conference,
    kind: result.kind,
    key: result.key,
    action: result.action,
    source: result.origin?.source ?? null,
    row: result.origin?.row ?? null,
    line: result.origin?.line ?? null,
    platform_id: result.platformId,
    http_status: result.httpStatus,
    error_code: result.errorCode,
    message: result.errorMessage,
    attempts: result.attempts,
    duration_ms: result.durationMs,
    recorded_at: result.recordedAt.toISOString(),
    name: person.name,
    email: person.email,
  };
}

/** `.json` → json, anything else → csv. */
export function formatForFile(file: string): Exclude<ReportFormat, 'table'> {
  return file.toLowerCase().endsWith('.json') ? 'json' : 'csv';
}
