import { closeSync, writeSync } from 'node:fs';
import type { Command } from 'commander';
import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import { rootLogger } from '../../log/logger.js';
import { csvLine } from '../../report/csv-cell.js';
import { hasDrift } from '../../sync/audit/audit-job.js';
import { formatAudit } from '../../sync/audit/audit-summary.js';
import type { DriftEntry } from '../../sync/audit/drift.js';
import { repairDrift } from '../../sync/audit/repair-drift.js';
import { loadJobFile } from '../../sync/job-file.js';
import { openAuditEngine, type AuditEngine } from '../../sync/runs/open-audit-engine.js';
import { stopOnSignals } from '../../sync/runs/stop-on-signals.js';
import { EXIT } from '../exit-codes.js';
import { announceStop, finishRunCommand, withReportFile, type RunReportFile } from './run-outcome.js';

interface AuditCliOptions {
  json?: boolean;
  report?: string;
  repair?: boolean;
}

const REPORT_COLUMNS = ['kind', 'key', 'type', 'fields', 'platform_id', 'detail'] as const;

export function registerAuditCommand(program: Command): void {
  program
    .command('audit')
    .description(
      'Read the platform back and say where it differs from what the sources say now (missing, changed, extra); --repair puts it right.',
    )
    .argument('<job>', 'the job file (YAML)')
    .option('--json', 'print {"summary", "drift"} as one JSON document')
    .option('--report <file>', 'write every drift entry to this file (.csv, or .json)')
    .option('--repair', 'then send what puts the platform back as the source says, as a run (trigger audit)')
    .action(async (jobPath: string, options: AuditCliOptions) => {
      if (options.repair && options.json) {
        // The repair prints a run summary: one JSON document could not hold both.
        throw new ConfigError('--json prints the audit alone: drop --json to --repair.', {
          code: CODE.EVSYNC_USAGE,
        });
      }
      const job = loadJobFile(jobPath);
      const logger = rootLogger().child({ job: job.name, command: 'audit' });
      await withReportFile(options.report, async (report) => {
        const signals = stopOnSignals(announceStop);
        // The read-back goes through the client a run uses: its rate limit and retries.
        let engine: AuditEngine;
        try {
          engine = await openAuditEngine(job, { logger, signal: signals.signal });
        } catch (error) {
          signals.dispose();
          throw error;
        }
        try {
          const drift: DriftEntry[] = [];
          const summary = await engine.audit((entry) => drift.push(entry));
          if (report) writeDriftReport(report, drift);
          const found = hasDrift(summary);
          if (options.json) process.stdout.write(`${JSON.stringify({ summary, drift })}\n`);
          else {
            process.stdout.write(
              `Audit of ${job.name}: ${verdict(found, drift)}\n\n${formatAudit(summary, drift)}\n`,
            );
            if (report) process.stdout.write(`Report: ${drift.length} entries in ${report.file}\n`);
          }
          if (!options.repair || !found) {
            process.exitCode = found ? EXIT.someRowsFailed : EXIT.ok;
            if (options.repair) process.stdout.write('\nNothing to repair: nothing was sent.\n');
            return;
          }
          process.stdout.write('\nRepair: sending what puts the platform back as the source says.\n');
          const run = await repairDrift(engine.deps, job, drift);
          process.exitCode = await finishRunCommand(engine.deps.ledger, run, undefined);
        } finally {
          await engine.close();
          signals.dispose();
        }
      });
    });
}

function verdict(found: boolean, drift: readonly DriftEntry[]): string {
  const extras = drift.filter((entry) => entry.type === 'extra').length;
  if (found) return 'the platform differs from the source.';
  return extras > 0
    ? `in sync (${extras} extra on the platform, reported, never deleted).`
    : 'the platform is as the source says.';
}

/** Every entry, CSV cells neutralised as the run report's are (src/report/csv-cell.ts). */
function writeDriftReport(report: RunReportFile, drift: readonly DriftEntry[]): void {
  if (report.file.toLowerCase().endsWith('.json'))
    writeSync(report.fd, `${JSON.stringify(drift, null, 2)}\n`);
  else {
    writeSync(report.fd, csvLine(REPORT_COLUMNS));
    for (const entry of drift) {
      writeSync(
        report.fd,
        csvLine([entry.kind, entry.key, entry.type, entry.fields.join(' '), entry.platform_id, entry.detail]),
      );
    }
  }
  closeSync(report.fd);
  report.written = true;
}
