import type { Command } from 'commander';
import { resumeRun } from '../../sync/runs/resume-run.js';
import { finishRunCommand, waitNotice, withReportFile, withStoredRunEngine } from './run-outcome.js';

export function registerResumeCommand(program: Command): void {
  program
    .command('resume')
    .description(
      'Finish an interrupted, aborted or killed run: send every planned row that has no result yet.',
    )
    .argument('<run>', 'the run id (see `evsync runs`), or `latest` for the newest run')
    .option('--report <file>', 'also write every row result to this file (.csv, or .json)')
    .option('--wait', 'if another process runs this job, wait for it to end instead of stopping')
    .option('--json', 'print the outcome as one JSON object (progress and logs stay on standard error)')
    .action(async (runId: string, options: { report?: string; wait?: boolean; json?: boolean }) => {
      await withReportFile(options.report, (report) =>
        withStoredRunEngine(
          runId,
          'runId',
          async (engine, run) => {
            const summary = await resumeRun(engine.deps, run.id);
            process.exitCode = await finishRunCommand(engine.deps.ledger, summary, report, {
              json: options.json ?? false,
            });
          },
          waitNotice(options.wait),
        ),
      );
    });
}
