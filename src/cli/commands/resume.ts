import type { Command } from 'commander';
import { unknownRunError } from '../../ledger/ledger-error.js';
import { openLedger } from '../../ledger/open-ledger.js';
import { rootLogger } from '../../log/logger.js';
import { openEngine } from '../../sync/engine/open-engine.js';
import { resumeRun } from '../../sync/engine/resume-run.js';
import { rateOfRun } from '../../sync/engine/run-rate.js';
import { stopOnSignals } from '../../sync/engine/stop-on-signals.js';
import { finishRunCommand } from './run-outcome.js';

export function registerResumeCommand(program: Command): void {
  program
    .command('resume')
    .description(
      'Finish an interrupted, aborted or killed run: send every planned intent that has no result yet.',
    )
    .argument('<run>', 'the run id (see `evsync runs`)')
    .option('--report <file>', 'also write every row result to this file (.csv, or .json)')
    .action(async (runId: string, options: { report?: string }) => {
      const ledger = await openLedger();
      const signals = stopOnSignals(() =>
        process.stderr.write(
          '\nevsync: stopping — letting requests in flight finish (press again to quit now)\n',
        ),
      );
      try {
        const run = await ledger.getRun(runId);
        if (!run) throw unknownRunError(runId);
        const logger = rootLogger().child({ job: run.jobName, runId });
        const engine = await openEngine({ rate: rateOfRun(run), logger, signal: signals.signal, ledger });
        try {
          const summary = await resumeRun(engine.deps, runId);
          process.exitCode = await finishRunCommand(ledger, summary, options.report);
        } finally {
          await engine.close();
        }
      } finally {
        signals.dispose();
        await ledger.close();
      }
    });
}
