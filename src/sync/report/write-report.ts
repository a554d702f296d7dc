import type { Ledger } from '../../ledger/ledger.js';
import type { IntentResultRecord, ResultAction } from '../../model/result-records.js';
import type { IntentKind } from '../../model/intent.js';
import { conferenceHost } from '../../model/conference.js';
import { csvLine } from '../../report/csv-cell.js';

export const REPORT_FORMATS = ['csv', 'json'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export interface ReportOptions {
  format: ReportFormat;
  actions?: ResultAction[];
  kinds?: IntentKind[];
  /** Only results with one of these error codes. */
  errorCodes?: readonly string[];
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
  if (options.format === 'csv') await write(csvLine(COLUMNS));
  else await write('[\n');
  for await (const result of ledger.eachResult(runId, filter)) {
    const row = reportRow(result, conference);
    if (options.format === 'csv') await write(csvLine(COLUMNS.map((column) => row[column])));
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

function reportRow(
  result: IntentResultRecord,
  conference: string | null,
): Record<(typeof COLUMNS)[number], string | number | null> {
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
  };
}

/** `.json` → json, anything else → csv. */
export function formatForFile(file: string): ReportFormat {
  return file.toLowerCase().endsWith('.json') ? 'json' : 'csv';
}
