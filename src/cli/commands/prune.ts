import type { Command } from 'commander';
import { z } from 'zod';
import { retentionFromEnv } from '../../config/env-config.js';
import { keepRunsSchema, type Retention, retentionAgeSchema } from '../../config/retention.js';
import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import { openLedger } from '../../ledger/open-ledger.js';
import { noRetentionError, pruneRuns } from '../../sync/prune/prune-runs.js';
import { formatPruneReport, pruneReportJson } from './prune-output.js';

const optionsSchema = z.object({
  olderThan: retentionAgeSchema.optional(),
  keepRuns: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of runs, e.g. 30')
    .transform(Number)
    .pipe(keepRunsSchema)
    .optional(),
  job: z.string().min(1).optional(),
  dryRun: z.boolean().optional(),
  json: z.boolean().optional(),
});

export function registerPruneCommand(program: Command): void {
  program
    .command('prune')
    .description(
      "Remove old runs' per-row data (row results and planned rows), keeping each run with its counts and the synced state. " +
        "Without flags, each job's retention: (its job file), else EVSYNC_RETENTION_OLDER_THAN / EVSYNC_RETENTION_KEEP_RUNS; " +
        'there is no built-in default: with none of them, nothing is removed (exit 2).',
    )
    .option('--older-than <age>', 'runs that finished longer ago than this: 30m, 12h, 90d, 2w')
    .option(
      '--keep-runs <n>',
      "keep each job's newest N runs (with --older-than: pruned only when both say so)",
    )
    .option('--job <name>', "only this job's runs")
    .option('--dry-run', 'say what would be removed, remove nothing')
    .option('--json', 'print the report as JSON')
    .action(async (raw: Record<string, unknown>) => {
      const parsed = optionsSchema.safeParse(raw);
      if (!parsed.success) {
        const problems = parsed.error.issues.map((issue) => `--${flag(issue.path)}: ${issue.message}`);
        throw new ConfigError(problems.join('\n'), { code: CODE.EVSYNC_USAGE });
      }
      const options = parsed.data;
      const given: Retention = {
        ...(options.olderThan === undefined ? {} : { olderThan: options.olderThan.replace(/\s+/g, '') }),
        ...(options.keepRuns === undefined ? {} : { keepRuns: options.keepRuns }),
      };
      const flags = Object.keys(given).length > 0 ? given : undefined;
      const fromEnv = retentionFromEnv();
      const ledger = await openLedger();
      try {
        const report = await pruneRuns(ledger, {
          ...(flags ? { retention: flags } : {}),
          ...(fromEnv ? { defaultRetention: fromEnv } : {}),
          ...(options.job === undefined ? {} : { jobName: options.job }),
          dryRun: options.dryRun === true,
        });
        // Nothing anywhere says what to keep: a usage problem, not "nothing to prune".
        if (
          report.runs.length === 0 &&
          report.jobs.length > 0 &&
          report.withoutRetention.length === report.jobs.length
        )
          throw noRetentionError();
        process.stdout.write(options.json ? pruneReportJson(report) : formatPruneReport(report));
      } finally {
        await ledger.close();
      }
    });
}

function flag(path: readonly PropertyKey[]): string {
  return String(path[0] ?? '').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}
