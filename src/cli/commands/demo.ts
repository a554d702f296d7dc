import { relative } from 'node:path';
import type { Command } from 'commander';
import { rootLogger } from '../../log/logger.js';
import { runDemo } from '../demo/run-demo.js';
import type { DemoResult } from '../demo/run-demo.js';
import { defaultProgress } from '../../sync/runs/open-engine.js';
import { formatRunSummary } from '../../sync/execute/run-summary.js';
import { stopOnSignals } from '../../sync/runs/stop-on-signals.js';
import { EXIT } from '../exit-codes.js';

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description(
      'Try evsync with nothing installed: an in-process sandbox platform, the bundled sample conference (jobs/demo.yaml), and an embedded ledger.',
    )
    .option(
      '--data-dir <dir>',
      'where the demo ledger goes: a new or empty folder, or an earlier demo folder, which is emptied first (default: $EVSYNC_DATA_DIR/demo, else .evsync/demo)',
    )
    .action(async (options: { dataDir?: string }) => {
      const logger = rootLogger().child({ job: 'demo' });
      process.stdout.write(
        'evsync demo: starting a sandbox platform in this process and syncing the bundled sample conference…\n',
      );
      const signals = stopOnSignals();
      try {
        const result = await runDemo({
          ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
          logger,
          progress: defaultProgress(logger),
          signal: signals.signal,
        });
        process.stdout.write(`\n${formatDemo(result)}\n`);
        // The sample data has bad rows on purpose: a completed demo is a success.
        process.exitCode = result.summary.run.status === 'completed' ? EXIT.ok : EXIT.aborted;
      } finally {
        signals.dispose();
      }
    });
}

function formatDemo(result: DemoResult): string {
  const { summary, counters } = result;
  const dataDir = relative(process.cwd(), result.dataDir) || '.';
  const runId = summary.run.id;
  const attached = counters.statuses['203'] ?? 0;
  const lines = [
    formatRunSummary(summary).split('\n\n').slice(0, 2).join('\n\n'),
    '',
    `The sandbox answered ${counters.total} calls (${attached} × 203: a platform-wide attendee attached, then updated with a PUT).`,
    '',
    'Rows that did not sync (on purpose: the sample data has a few bad rows):',
    ...result.problems
      .slice(0, 12)
      .map(
        (p) =>
          `  ${p.action.padEnd(7)} ${p.kind} ${p.key}${p.where ? ` (${p.where})` : ''}\n            ${p.message}`,
      ),
    ...(result.problems.length > 12 ? [`  … and ${result.problems.length - 12} more`] : []),
    '',
    'Where to look next (the demo ledger stays in ' + dataDir + '):',
    `  EVSYNC_DATA_DIR=${dataDir} npx evsync runs`,
    `  EVSYNC_DATA_DIR=${dataDir} npx evsync report ${runId} --status failed skipped`,
    `  EVSYNC_DATA_DIR=${dataDir} npx evsync report ${runId} --format json > demo-results.json`,
    `  npx evsync plan ${relative(process.cwd(), result.jobFile) || result.jobFile}     # what a run would send`,
    '  npx evsync sandbox --seed jobs/demo-data/sandbox-seed.yaml   # a sandbox to run jobs against yourself',
    '  docs/sync-engine.md explains plans, phases, processors and resume.',
  ];
  return lines.join('\n');
}
