import { isAbsolute, relative } from 'node:path';
import { vendorFromEnv } from '../../config/env-config.js';
import { messageOf } from '../../errors/evsync-error.js';
import { loadMapping } from '../../mapping/load-mapping.js';
import { mapSource, mergeHeaderReports } from '../../mapping/map-source.js';
import type { HeaderReport } from '../../mapping/mapped-item.js';
import { openSource } from '../../sources/open-source.js';
import { yieldedNoRows } from '../../sources/source-row.js';
import { DEFAULT_VENDOR } from '../../platform/vendor.js';
import { type LoadedJob, resolveJobPath, stepLabel, stepMappingOptions } from '../../sync/job-file.js';
import { userFileError } from '../exit-codes.js';
import type { CheckResult } from './doctor-check.js';

/**
 * Rows read per step: enough to see the columns and a first problem, few enough that a
 * doctor of a job over a million rows answers at once (`validate` reads them all).
 */
const SAMPLE_ROWS = 200;

/** How long a step's check may take unless `--source-timeout` says otherwise, in seconds. */
export const SOURCE_CHECK_SECONDS = 30;

/**
 * Each step of the job: its mapping loads, its source opens (a file is readable, a query
 * runs, read-only as every query evsync runs), the columns the mapping reads are there,
 * and the first rows map. One line per step. A step that has not answered within `seconds`
 * fails; its query is cancelled by the server at that time (a statement timeout), so that
 * nothing keeps running after doctor.
 */
export async function sourceChecks(job: LoadedJob, seconds = SOURCE_CHECK_SECONDS): Promise<CheckResult[]> {
  const vendor = vendorOr(DEFAULT_VENDOR);
  const results: CheckResult[] = [];
  for (const [index, step] of job.steps.entries()) {
    const check = `step ${stepLabel(step, index)}`;
    try {
      results.push({ check, ...(await withinSeconds(sampleStep(job, step, vendor, seconds), seconds)) });
    } catch (error) {
      results.push({ check, status: 'fail', ...problemOf(job, step.source, error) });
    }
  }
  return results;
}

/** `work`'s answer, or a failed check once `seconds` (and a little for the server's cancel) have passed. */
async function withinSeconds(
  work: Promise<Omit<CheckResult, 'check'>>,
  seconds: number,
): Promise<Omit<CheckResult, 'check'>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Omit<CheckResult, 'check'>>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          status: 'fail',
          message: `no answer within ${seconds} s: the source was left (a query is cancelled by its server)`,
          fix: 'check the query (an index, a WHERE) or the server, or give doctor --source-timeout SECONDS',
        }),
      seconds * 1000 + 2_000,
    );
    timer.unref();
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function sampleStep(
  job: LoadedJob,
  step: LoadedJob['steps'][number],
  vendor: string,
  seconds: number,
): Promise<Omit<CheckResult, 'check'>> {
  const mapping = await loadMapping(step.mapping, {
    baseDir: job.baseDir,
    vendor,
    ...stepMappingOptions(step),
  });
  const source = openSource(step.source, { baseDir: job.baseDir, queryTimeoutMs: seconds * 1000 });
  const headers: HeaderReport[] = [];
  let rows = 0;
  let invalid = 0;
  const items = mapSource(source, mapping, { onHeader: (report) => headers.push(report) });
  try {
    for await (const item of items) {
      rows += 1;
      if (item.type === 'invalid') invalid += 1;
      if (rows >= SAMPLE_ROWS) break;
    }
  } finally {
    await items.return?.();
  }
  const where = `${source.description} → ${mapping.name}`;
  if (rows === 0)
    return {
      status: 'warn',
      message: `${yieldedNoRows(source.description)} (mapping ${mapping.name})`,
      fix: 'check the export (or the query’s WHERE): a run of it sends nothing',
    };
  const missing = mergeHeaderReports(headers)?.missing ?? [];
  const read = `${where}: ${rows >= SAMPLE_ROWS ? `the first ${rows} rows` : `${rows} row${rows === 1 ? '' : 's'}`} read`;
  const absent =
    missing.length > 0
      ? `; ${missing.length} column${missing.length === 1 ? '' : 's'} the mapping can read ${missing.length === 1 ? 'is' : 'are'} absent (${missing
          .slice(0, 4)
          .map((aliases) => aliases[0])
          .join(', ')}${missing.length > 4 ? ', …' : ''}: read as empty)`
      : ', every column the mapping reads found';
  if (invalid > 0)
    return {
      status: 'warn',
      message: `${read}, ${invalid} of them invalid${absent}`,
      fix: `evsync validate ${shownJob(job)} names each invalid row and why; fix the export or the mapping`,
    };
  return { status: 'ok', message: `${read}${absent}` };
}

/** A file error in plain words, naming the path as the job file gives it; else the error's message. */
function problemOf(job: LoadedJob, source: unknown, error: unknown): { message: string; fix?: string } {
  const paths = filePathsOf(source).map((path) => resolveJobPath(job, path));
  const plain = userFileError(error, paths);
  if (plain)
    return { message: plain.message, fix: 'put the export there, or change the path in the job file' };
  return { message: messageOf(error) };
}

/** The file paths a step's source names (its CSV, its schedule export, its speaker list). */
function filePathsOf(source: unknown): string[] {
  const found: string[] = [];
  const visit = (value: unknown, key?: string): void => {
    if (
      typeof value === 'string' &&
      (key === 'path' ||
        key === 'csv' ||
        key === 'sessionize' ||
        key === 'pretalx' ||
        key === 'frab' ||
        key === 'pretix_json')
    )
      found.push(value);
    else if (typeof value === 'object' && value !== null)
      for (const [k, v] of Object.entries(value)) visit(v, k);
  };
  visit(source);
  return found;
}

/** The job file as the person would type it from here. */
function shownJob(job: LoadedJob): string {
  const path = relative(process.cwd(), job.file);
  return path.startsWith('..') || isAbsolute(path) ? job.file : path;
}

function vendorOr(fallback: string): string {
  try {
    return vendorFromEnv();
  } catch {
    return fallback;
  }
}
