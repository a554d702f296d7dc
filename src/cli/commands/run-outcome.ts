import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Ledger } from '../../ledger/ledger.js';
import type { RunSummary } from '../../sync/engine/run-summary.js';
import { formatRunSummary } from '../../sync/engine/run-summary.js';
import { formatForFile, writeReport } from '../../sync/report/write-report.js';
import { unknownRunError } from '../../ledger/ledger-error.js';
import { openLedger } from '../../ledger/open-ledger.js';
import { rootLogger } from '../../log/logger.js';
import { openEngine, type OpenEngine } from '../../sync/engine/open-engine.js';
import { rateOfRun } from '../../sync/engine/run-rate.js';
import { stopOnSignals } from '../../sync/engine/stop-on-signals.js';
import { EXIT } from '../exit-codes.js';

/** Prints the summary, writes `--report FILE` if asked, and answers the exit code. */
export async function finishRunCommand(
  ledger: Ledger,
  summary: RunSummary,
  reportFile?: string,
): Promise<number> {
  process.stdout.write(`${formatRunSummary(summary)}\n`);
  if (reportFile) {
    const out = createWriteStream(reportFile);
    const count = await writeReport(
      ledger,
      summary.run.id,
      { format: formatForFile(reportFile) },
      async (chunk) => {
        if (!out.write(chunk)) await once(out, 'drain');
      },
    );
    out.end();
    await once(out, 'finish');
    process.stdout.write(`Report: ${count} rows in ${reportFile}\n`);
  }
  return exitCodeOf(summary);
}

/** 3 when the run stopped early, 1 when some intents failed, 0 otherwise. */
export function exitCodeOf(summary: RunSummary): number {
  if (summary.stopped) return EXIT.aborted;
  return (summary.totals.failed ?? 0) > 0 ? EXIT.someRowsFailed : EXIT.ok;
}

/** What a person at the terminal sees on the first Ctrl-C: it drains, a second one quits. */
export function announceStop(): void {
  process.stderr.write('\nevsync: stopping — letting requests in flight finish (press again to quit now)\n');
}

/**
 * Opens the ledger, finds a stored run, and gives `work` an engine at that run's rate that
 * stops taking work on SIGINT/SIGTERM; everything is closed afterwards. `resume` and `retry`
 * both act on a stored run this way.
 */
export async function withStoredRunEngine(
  runId: string,
  logAs: 'runId' | 'retryOf',
  work: (engine: OpenEngine) => Promise<void>,
): Promise<void> {
  const ledger = await openLedger();
  const signals = stopOnSignals(announceStop);
  try {
    const run = await ledger.getRun(runId);
    if (!run) throw unknownRunError(runId);
    const logger = rootLogger().child({ job: run.jobName, [logAs]: runId });
    const engine = await openEngine({ rate: rateOfRun(run), logger, signal: signals.signal, ledger });
    try {
      await work(engine);
    } finally {
      await engine.close();
    }
  } finally {
    signals.dispose();
    await ledger.close();
  }
}
