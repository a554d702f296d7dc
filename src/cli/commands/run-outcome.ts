import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Ledger } from '../../ledger/ledger.js';
import type { RunSummary } from '../../sync/engine/run-summary.js';
import { formatRunSummary } from '../../sync/engine/run-summary.js';
import { formatForFile, writeReport } from '../../sync/report/write-report.js';
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
