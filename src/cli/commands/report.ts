import { once } from 'node:events';
import type { Command } from 'commander';
import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import { openLedger } from '../../ledger/open-ledger.js';
import { storedRun } from './run-outcome.js';
import { prunedNote } from '../../sync/prune/pruned-note.js';
import { vendorFromEnv } from '../../config/env-config.js';
import { DEFAULT_VENDOR } from '../../platform/vendor.js';
import { type ResultAction, RESULT_ACTIONS } from '../../model/result-records.js';
import type { ReportFormat } from '../../sync/report/write-report.js';
import { REPORT_FORMATS, writeReport } from '../../sync/report/write-report.js';

export function registerReportCommand(program: Command): void {
  program
    .command('report')
    .description(
      'Print the result of every row of a run: a table on a terminal, CSV when piped or asked, or JSON.',
    )
    .argument('<run>', 'the run id (see `evsync runs`), or `latest` for the newest run')
    .option('--status <action...>', `only these outcomes (${RESULT_ACTIONS.join(', ')})`)
    .option('--format <format>', `${REPORT_FORMATS.join(', ')} (default: table on a terminal, csv otherwise)`)
    .option('--json', 'print JSON (the same as --format json)')
    .option('--csv', 'print CSV, also on a terminal (the same as --format csv)')
    .option('--search <text>', 'only rows whose client_id, name, e-mail or message holds this text')
    .action(async (runId: string, options: ReportCliOptions) => {
      const format = formatOf(options);
      const unknown = (options.status ?? []).filter(
        (s) => !(RESULT_ACTIONS as readonly string[]).includes(s),
      );
      if (unknown.length > 0)
        throw new ConfigError(`--status ${unknown.join(', ')}: use ${RESULT_ACTIONS.join(', ')}`);
      const ledger = await openLedger();
      try {
        const run = await storedRun(ledger, runId);
        // Said on standard error: the CSV or JSON on standard output stays what it was.
        if (run.pruned) process.stderr.write(`Run ${run.id}: ${prunedNote(run.pruned)}\n`);
        await writeReport(
          ledger,
          run.id,
          {
            format,
            width: terminalWidth(),
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

interface ReportCliOptions {
  status?: string[];
  format?: string;
  json?: boolean;
  csv?: boolean;
  search?: string;
}

/** `--json` and `--csv` are `--format`'s short forms; without any, a table for a person, CSV for a program. */
function formatOf(options: ReportCliOptions): ReportFormat {
  const asked = [options.format, options.json ? 'json' : undefined, options.csv ? 'csv' : undefined].filter(
    (format) => format !== undefined,
  );
  if (new Set(asked).size > 1)
    throw new ConfigError(`${asked.join(' and ')}: ask for one format`, { code: CODE.EVSYNC_USAGE });
  const format = asked[0] ?? (process.stdout.isTTY ? 'table' : 'csv');
  if (!(REPORT_FORMATS as readonly string[]).includes(format))
    throw new ConfigError(`--format ${format}: use ${REPORT_FORMATS.join(', ')}`, {
      code: CODE.EVSYNC_USAGE,
    });
  return format as ReportFormat;
}

/**
 * The terminal's width; piped (`--format table | less`), the shell's `COLUMNS` when set, as
 * other tools read it; else 120.
 */
function terminalWidth(): number {
  const fromEnv = Number(process.env.COLUMNS);
  return process.stdout.columns ?? (Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 120);
}

/** The vendor word of e-mail params; one a run would refuse made no results to search either. */
function vendorOrDefault(): string {
  try {
    return vendorFromEnv();
  } catch {
    return DEFAULT_VENDOR;
  }
}
