import { once } from 'node:events';
import type { Command } from 'commander';
import { ConfigError } from '../../errors/evsync-error.js';
import { unknownRunError } from '../../ledger/ledger-error.js';
import { openLedger } from '../../ledger/open-ledger.js';
import { prunedNote } from '../../sync/prune/pruned-note.js';
import { vendorFromEnv } from '../../config/env-config.js';
import { DEFAULT_VENDOR } from '../../platform/vendor.js';
import { type ResultAction, RESULT_ACTIONS } from '../../model/result-records.js';
import type { ReportFormat } from '../../sync/report/write-report.js';
import { REPORT_FORMATS, writeReport } from '../../sync/report/write-report.js';

export function registerReportCommand(program: Command): void {
  program
    .command('report')
    .description('Print the per-row results of a run as CSV or JSON.')
    .argument('<run>', 'the run id (see `evsync runs`)')
    .option('--status <action...>', `only these outcomes (${RESULT_ACTIONS.join(', ')})`)
    .option('--format <format>', 'csv or json', 'csv')
    .option('--search <text>', 'only rows whose client_id, name, e-mail or message holds this text')
    .action(async (runId: string, options: { status?: string[]; format: string; search?: string }) => {
      if (!(REPORT_FORMATS as readonly string[]).includes(options.format)) {
        throw new ConfigError(`--format ${options.format}: use csv or json`);
      }
      const unknown = (options.status ?? []).filter(
        (s) => !(RESULT_ACTIONS as readonly string[]).includes(s),
      );
      if (unknown.length > 0)
        throw new ConfigError(`--status ${unknown.join(', ')}: use ${RESULT_ACTIONS.join(', ')}`);
      const ledger = await openLedger();
      try {
        const run = await ledger.getRun(runId);
        if (!run) throw unknownRunError(runId);
        // Said on standard error: the CSV or JSON on standard output stays what it was.
        if (run.pruned) process.stderr.write(`Run ${run.id}: ${prunedNote(run.pruned)}\n`);
        await writeReport(
          ledger,
          runId,
          {
            format: options.format as ReportFormat,
            actions: (options.status ?? []) as ResultAction[],
            ...(options.search?.trim() ? { search: options.search.trim(), vendor: vendorOrDefault() } : {}),
          },
          async (chunk) => {
            if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
          },
        );
      } finally {
        await ledger.close();
      }
    });
}

/** The vendor word of e-mail params; one a run would refuse made no results to search either. */
function vendorOrDefault(): string {
  try {
    return vendorFromEnv();
  } catch {
    return DEFAULT_VENDOR;
  }
}
