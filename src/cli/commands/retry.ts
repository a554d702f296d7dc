import type { Command } from 'commander';
import { ConfigError } from '../../errors/evsync-error.js';
import type { IntentKind } from '../../model/intent.js';
import { INTENT_KINDS } from '../../model/intent.js';
import { retryRun } from '../../sync/engine/retry-run.js';
import { finishRunCommand, withReportFile, withStoredRunEngine } from './run-outcome.js';

interface RetryCliOptions {
  since?: string;
  kind?: string[];
  clientId?: string[];
  report?: string;
}

export function registerRetryCommand(program: Command): void {
  program
    .command('retry')
    .description('Re-send the intents that failed in a run, as a new run.')
    .argument('<run>', 'the run id (see `evsync runs`)')
    .option(
      '--since <time>',
      'only intents that failed at or after this time (ISO 8601, e.g. 2026-11-22T01:00Z)',
    )
    .option('--kind <kind...>', `only these kinds (${INTENT_KINDS.join(', ')})`)
    .option('--client-id <id...>', 'only these client_ids (keys of link intents also work)')
    .option('--report <file>', "also write the new run's results to this file (.csv, or .json)")
    .action(async (runId: string, options: RetryCliOptions) => {
      const filter = parseFilter(options);
      await withReportFile(options.report, (report) =>
        withStoredRunEngine(runId, 'retryOf', async (engine) => {
          const summary = await retryRun(engine.deps, runId, filter);
          if (!summary) {
            // Rows that failed in the source or the mapping were never planned: retry has
            // nothing to send for them, and only a fixed source can.
            // (Such rows are named by their place, so a --client-id filter never matches them.)
            const unplanned = filter.keys
              ? 0
              : (
                  await engine.deps.ledger.results(runId, {
                    actions: ['failed'],
                    ...(filter.kinds ? { kinds: filter.kinds } : {}),
                    ...(filter.since ? { since: filter.since } : {}),
                  })
                ).filter((result) => result.key.startsWith('@')).length;
            process.stdout.write(
              `Run ${runId} has no failed intents matching that filter: nothing to retry.\n` +
                (unplanned === 0
                  ? ''
                  : `${unplanned} row(s) failed before anything was sent (the source or the mapping refused them: evsync report ${runId} --status failed). ` +
                    'Fix them in the source and run the job again: only those rows and what changed are sent.\n'),
            );
            return;
          }
          process.exitCode = await finishRunCommand(engine.deps.ledger, summary, report);
        }),
      );
    });
}

function parseFilter(options: RetryCliOptions): { since?: Date; kinds?: IntentKind[]; keys?: string[] } {
  const filter: { since?: Date; kinds?: IntentKind[]; keys?: string[] } = {};
  if (options.since !== undefined) {
    const since = new Date(options.since);
    if (Number.isNaN(since.getTime())) {
      throw new ConfigError(
        `--since "${options.since}" is not a time; write ISO 8601, e.g. 2026-11-22T01:00Z`,
      );
    }
    filter.since = since;
  }
  if (options.kind?.length) {
    const unknown = options.kind.filter((kind) => !(INTENT_KINDS as readonly string[]).includes(kind));
    if (unknown.length > 0)
      throw new ConfigError(`--kind ${unknown.join(', ')}: use ${INTENT_KINDS.join(', ')}`);
    filter.kinds = options.kind as IntentKind[];
  }
  if (options.clientId?.length) filter.keys = options.clientId;
  return filter;
}
