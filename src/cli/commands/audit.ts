import type { Command } from 'commander';
import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import { rootLogger } from '../../log/logger.js';
import { hasDrift } from '../../sync/audit/audit-job.js';
import { formatAudit } from '../../sync/audit/audit-summary.js';
import { auditVerdict } from '../../sync/audit/audit-verdict.js';
import { repairDrift } from '../../sync/audit/repair-drift.js';
import { loadJobFile } from '../../sync/job-file.js';
import { openAuditEngine, type AuditEngine } from '../../sync/runs/open-audit-engine.js';
import { stopOnSignals } from '../../sync/runs/stop-on-signals.js';
import { EXIT } from '../exit-codes.js';
import { AuditDriftOutput } from './audit-drift-output.js';
import { announceStop, finishRunCommand, withReportFile } from './run-outcome.js';

interface AuditCliOptions {
  json?: boolean;
  report?: string;
  repair?: boolean;
}

/** Drift entries shown per kind and type on a terminal. */
const EXAMPLES = 5;

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
        let output: AuditDriftOutput | undefined;
        try {
          // Entries go to the report and --json's spool as found; memory keeps the examples.
          const drift = (output = new AuditDriftOutput({
            report,
            json: options.json ?? false,
            repair: options.repair ?? false,
            examples: EXAMPLES,
          }));
          const summary = await engine.audit(drift.add);
          drift.closeReport();
          const found = hasDrift(summary);
          if (options.json) await drift.printJson(summary);
          else {
            process.stdout.write(
              `Audit of ${job.name}: ${auditVerdict(summary)}\n\n${formatAudit(summary, drift.examples, EXAMPLES)}\n`,
            );
            if (report) process.stdout.write(`Report: ${drift.count} entries in ${report.file}\n`);
          }
          if (!options.repair || !found) {
            process.exitCode = found ? EXIT.someRowsFailed : EXIT.ok;
            if (options.repair) process.stdout.write('\nNothing to repair: nothing was sent.\n');
            return;
          }
          if (drift.anotherPerson > 0) process.stdout.write(`\n${notRepaired(drift.anotherPerson)}\n`);
          process.stdout.write('\nRepair: sending what puts the platform back as the source says.\n');
          const run = await repairDrift(engine.deps, job, drift.toRepair);
          process.exitCode = await finishRunCommand(engine.deps.ledger, run, undefined);
        } finally {
          output?.dispose();
          await engine.close();
          signals.dispose();
        }
      });
    });
}

/** Why the repair leaves users that now name another person alone (docs/audit.md, "Repair"). */
function notRepaired(count: number): string {
  const users = count === 1 ? '1 user whose row now names' : `${count} users whose rows now name`;
  return (
    `Not repaired: ${users} another person than the account under its key ("another_person" above). ` +
    'A repair never writes another person onto an account: the run refuses such a row as any run does ' +
    '(EVSYNC_KEY_NOW_ANOTHER_PERSON, and the key stays held; EVSYNC_KEY_OF_REMOVED_PERSON where a run removed the earlier person, as its line says). ' +
    'Give the new person a client_id of their own.'
  );
}
