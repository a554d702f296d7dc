import { closeSync, createWriteStream, rmSync } from 'node:fs';
import { once } from 'node:events';
import type { Ledger } from '../../ledger/ledger.js';
import type { RunRecord } from '../../model/run-record.js';
import type { RunSummary } from '../../sync/execute/run-summary.js';
import { formatRunSummary } from '../../sync/execute/run-summary.js';
import { openReportFile, reportUnwritable } from '../../report/open-report-file.js';
import { formatForFile, writeReport } from '../../sync/report/write-report.js';
import { unknownRunError } from '../../ledger/ledger-error.js';
import { openLedger } from '../../ledger/open-ledger.js';
import { rootLogger } from '../../log/logger.js';
import type { OpenEngine } from '../../sync/runs/open-engine.js';
import { rateOfRun } from '../../sync/runs/run-rate.js';
import { platformRefOfRun } from '../../config/conference.js';
import { stopOnSignals } from '../../sync/runs/stop-on-signals.js';
import { EXIT } from '../exit-codes.js';
import { openEngineForEnv } from '../../distributed/engine-for-env.js';

/** A `--report` file opened before the run; `written` once the run's results are in it. */
export interface RunReportFile {
  file: string;
  fd: number;
  written: boolean;
}

/**
 * Opens `--report FILE` before `work` sends anything (a path that cannot be written is a
 * usage error at once, not a crash after the run), and removes it if the command ends
 * without writing it: an empty or half file would read as a run with fewer results.
 */
export async function withReportFile<T>(
  file: string | undefined,
  work: (report: RunReportFile | undefined) => Promise<T>,
): Promise<T> {
  const report = file === undefined ? undefined : { file, fd: openReportFile(file), written: false };
  try {
    return await work(report);
  } finally {
    if (report && !report.written) {
      closeSync(report.fd);
      rmSync(report.file, { force: true });
    }
  }
}

/** How the run commands (`run`, `resume`, `retry`) print their outcome. */
export interface RunOutputOptions {
  /** One JSON object on standard output instead of the table: `--json`. */
  json?: boolean;
}

/**
 * Prints the summary (a table, or with `--json` one JSON object), writes the `--report`
 * file if asked, and answers the exit code.
 */
export async function finishRunCommand(
  ledger: Ledger,
  summary: RunSummary,
  report?: RunReportFile,
  output: RunOutputOptions = {},
): Promise<number> {
  let reported: { file: string; rows: number } | undefined;
  if (!output.json) process.stdout.write(`${formatRunSummary(summary)}\n`);
  if (report) {
    const out = createWriteStream(report.file, { fd: report.fd, autoClose: false });
    let failed: unknown;
    out.on('error', (error) => (failed ??= error));
    const count = await writeReport(
      ledger,
      summary.run.id,
      { format: formatForFile(report.file) },
      async (chunk) => {
        if (failed !== undefined) throw reportUnwritable(report.file, failed);
        // `once` rejects on 'error' and removes its listeners either way: a race with a second
        // `once(out, 'error')` left one error listener behind per full buffer.
        if (!out.write(chunk)) await once(out, 'drain').catch(() => undefined);
      },
    );
    await new Promise<void>((resolve) => out.end(resolve));
    if (failed !== undefined) throw reportUnwritable(report.file, failed);
    closeSync(report.fd);
    report.written = true;
    reported = { file: report.file, rows: count };
    if (!output.json) process.stdout.write(`Report: ${count} rows in ${report.file}\n`);
  }
  const exitCode = exitCodeOf(summary);
  if (output.json) process.stdout.write(`${JSON.stringify(runSummaryJson(summary, exitCode, reported))}\n`);
  return exitCode;
}

/** What `--json` prints for a run: the counts per kind and action, how it ended, what next. */
export function runSummaryJson(
  summary: RunSummary,
  exitCode: number,
  report?: { file: string; rows: number },
): Record<string, unknown> {
  const { run } = summary;
  return {
    runId: run.id,
    job: run.jobName,
    mode: run.mode,
    status: run.status,
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
    counts: summary.counts,
    totals: summary.totals,
    ...(summary.skipped ? { skipped: summary.skipped } : {}),
    ...(summary.stopped ? { stopped: summary.stopped, reason: summary.reason ?? null } : {}),
    ...(summary.nextStep ? { nextStep: summary.nextStep } : {}),
    ...(summary.uncertainCheckIns ? { uncertainCheckIns: summary.uncertainCheckIns } : {}),
    ...(report ? { report } : {}),
    exitCode,
  };
}

/**
 * 3 when the run stopped early, 1 when some intents failed or some rows were skipped for
 * want of data (not filtered out on purpose), 0 otherwise.
 */
export function exitCodeOf(summary: RunSummary): number {
  if (summary.stopped) return EXIT.aborted;
  return (summary.totals.failed ?? 0) > 0 || summary.rowsLost === true ? EXIT.someRowsFailed : EXIT.ok;
}

/** What a person at the terminal sees on the first Ctrl-C: it drains, a second one quits. */
export function announceStop(): void {
  process.stderr.write('\nevsync: stopping — letting requests in flight finish (press again to quit now)\n');
}

/**
 * What `--wait` tells the person at the terminal while another process holds the job:
 * once, on stderr, then the command waits.
 */
export function waitNotice(wait: boolean | undefined): ((holder: string) => void) | undefined {
  if (wait !== true) return undefined;
  return (holder) => {
    process.stderr.write(`evsync: ${holder}; waiting for it to end (--wait; Ctrl-C to give up).\n`);
  };
}

/**
 * Opens the ledger, finds a stored run, and gives `work` an engine at that run's rate that
 * stops taking work on SIGINT/SIGTERM; everything is closed afterwards. `resume` and `retry`
 * both act on a stored run this way.
 */
export async function withStoredRunEngine(
  runId: string,
  logAs: 'runId' | 'retryOf',
  work: (engine: OpenEngine, run: RunRecord) => Promise<void>,
  wait?: (holder: string) => void,
): Promise<void> {
  const signals = stopOnSignals(announceStop);
  let ledger: Ledger;
  try {
    ledger = await openLedger();
  } catch (error) {
    signals.dispose();
    throw error;
  }
  try {
    const run = await storedRun(ledger, runId);
    const logger = rootLogger().child({ job: run.jobName, [logAs]: run.id });
    const engine = await openEngineForEnv({
      rate: rateOfRun(run),
      jobName: run.jobName,
      platform: platformRefOfRun(run),
      logger,
      signal: signals.signal,
      ledger,
      ...(wait ? { wait } : {}),
      // A run `--same-conference` recorded is finished the same way, from the URL it was sent to.
      ...(run.conference ? { conferenceOfRun: run.conference.id } : {}),
    });
    try {
      await work(engine, run);
    } finally {
      await engine.close();
    }
  } finally {
    signals.dispose();
    await ledger.close();
  }
}

/**
 * The run a command names: its id, or `latest` for the newest run, what a person reaches for
 * the morning after without copying an id. An unknown one is exit 2.
 */
export async function storedRun(ledger: Ledger, runId: string): Promise<RunRecord> {
  const run = runId === 'latest' ? (await ledger.listRuns(1))[0] : await ledger.getRun(runId);
  if (!run) throw unknownRunError(runId);
  return run;
}
