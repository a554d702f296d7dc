import type { Command } from 'commander';
import { EXIT } from '../exit-codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import type { IntentKind } from '../../model/intent.js';
import { INTENT_KINDS } from '../../model/intent.js';
import { retryRun, type RetryFilter } from '../../sync/runs/retry-run.js';
import { finishRunCommand, waitNotice, withReportFile, withStoredRunEngine } from './run-outcome.js';

interface RetryCliOptions {
  since?: string;
  kind?: string[];
  clientId?: string[];
  report?: string;
  wait?: boolean;
  resendUnknown?: boolean;
  json?: boolean;
}

export function registerRetryCommand(program: Command): void {
  program
    .command('retry')
    .description(
      'Send again the rows that failed in a run (and the links skipped because of them), as a new run.',
    )
    .argument('<run>', 'the run id (see `evsync runs`), or `latest` for the newest run')
    .option(
      '--since <time>',
      'only rows that failed at or after this time (ISO 8601, e.g. 2026-11-22T01:00Z)',
    )
    .option('--kind <kind...>', `only these kinds (${INTENT_KINDS.join(', ')})`)
    .option('--client-id <id...>', 'only these client_ids (the keys of links, such as EVENT/USER, also work)')
    .option(
      '--resend-unknown',
      'also post the check-ins whose answer was lost and that cannot be looked up (check the platform first: the platform may have them, and a second POST is a second check-in)',
    )
    .option('--report <file>', "also write the new run's results to this file (.csv, or .json)")
    .option('--wait', 'if another process runs this job, wait for it to end instead of stopping')
    .option('--json', 'print the outcome as one JSON object (progress and logs stay on standard error)')
    .action(async (runId: string, options: RetryCliOptions) => {
      const filter = parseFilter(options);
      await withReportFile(options.report, (report) =>
        withStoredRunEngine(
          runId,
          'retryOf',
          async (engine, run) => {
            const outcome = await retryRun(engine.deps, run.id, filter);
            if (!outcome.summary) {
              process.stdout.write(
                options.json
                  ? `${JSON.stringify({ retryOf: run.id, nothingToRetry: outcome.nothingToRetry, stillFailing: outcome.stillFailing, notFound: outcome.notFound })}\n`
                  : `${outcome.nothingToRetry}\n`,
              );
              // Nothing was sent because the rows still fail in the source, or cannot be found
              // there again: rows left failed, as a run would say it.
              if (outcome.stillFailing > 0 || outcome.notFound > 0) process.exitCode = EXIT.someRowsFailed;
              return;
            }
            // Retried before: say by which run, and that only the rows still failing went.
            if (outcome.retried !== undefined) process.stderr.write(`${outcome.retried}\n`);
            process.exitCode = await finishRunCommand(engine.deps.ledger, outcome.summary, report, {
              json: options.json ?? false,
            });
          },
          waitNotice(options.wait),
        ),
      );
    });
}

function parseFilter(options: RetryCliOptions): RetryFilter {
  const filter: RetryFilter = options.resendUnknown === true ? { resendUnknown: true } : {};
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
