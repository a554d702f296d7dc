import { dirname, isAbsolute, join, relative } from 'node:path';
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
  const dataDir = shownPath(result.dataDir);
  const ledgerEnv = `EVSYNC_DATA_DIR=${dataDir}`;
  const evsync = cliCommand(result.jobFile);
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
    `Where to look next (the demo ledger stays in ${dataDir}; paste these from this folder):`,
    `  ${ledgerEnv} ${evsync} runs`,
    `  ${ledgerEnv} ${evsync} report ${runId} --status failed skipped`,
    `  ${ledgerEnv} ${evsync} report ${runId} --json > demo-results.json`,
    // The demo's conference is its sandbox's URL: plan compares with what the demo synced there.
    `  ${ledgerEnv} EVSYNC_BASE_URL=${result.sandboxUrl} ${evsync} plan ${shownPath(result.jobFile)}   # what a run would send now`,
    `  ${evsync} sandbox --seed ${shownPath(join(dirname(result.jobFile), 'demo-data', 'sandbox-seed.yaml'))}   # a sandbox to run jobs against yourself`,
    `  ${evsync} init myconf --from csv   # a working folder of your own, with a job and a .env to fill in`,
    `  ${shownPath(join(dirname(dirname(result.jobFile)), 'README.md'))} says more; docs/sync-engine.md in the source explains plans, phases and resume.`,
  ];
  return lines.join('\n');
}

/** A path as the person types it here: relative when it is under this folder, else whole. */
function shownPath(path: string): string {
  const inside = relative(process.cwd(), path);
  return inside === '' ? '.' : inside.startsWith('..') || isAbsolute(inside) ? path : inside;
}

/**
 * How to call evsync from here: `npx evsync` in its checkout or a project that installed it
 * (npx finds it in node_modules), plain `evsync` when it was installed globally.
 */
function cliCommand(jobFile: string): string {
  const packageDir = dirname(dirname(jobFile));
  const inside = relative(process.cwd(), packageDir);
  const local = inside === '' || (!inside.startsWith('..') && !isAbsolute(inside));
  return local ? 'npx evsync' : 'evsync';
}
