import type { Command } from 'commander';
import { HANDED_TO_WORKERS } from '../../model/run-record.js';
import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import { rootLogger } from '../../log/logger.js';
import { loadJobFile } from '../../sync/job-file.js';
import type { LoadedJob } from '../../sync/job-file.js';
import { runJob } from '../../sync/runs/run-job.js';
import { stopOnSignals } from '../../sync/runs/stop-on-signals.js';
import { formatPlanSummary } from '../../sync/plan/format-plan-summary.js';
import { planExitCode } from '../../sync/plan/plan-summary.js';
import { printPlan } from './print-plan.js';
import { announceStop, finishRunCommand, waitNotice, withReportFile } from './run-outcome.js';
import { openEngineForEnv } from '../../distributed/engine-for-env.js';
import { conferenceUrl } from '../../config/conference.js';
import { conferenceHost } from '../../model/conference.js';

interface RunCliOptions {
  report?: string;
  dryRun?: boolean;
  force?: boolean;
  full?: boolean;
  wait?: boolean;
  detach?: boolean;
  json?: boolean;
  sameConference?: boolean;
}

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('Run a sync job: read its sources, send what changed, record a result for every row.')
    .argument('<job>', 'the job file (YAML), e.g. jobs/nightly.yaml')
    .option('--report <file>', 'also write every row result to this file (.csv, or .json)')
    .option('--dry-run', 'plan and print what would be sent; send and record nothing')
    .option('--force', "let mirror mode delete more than the job's delete_threshold")
    .option(
      '--full',
      'send every row, whatever the ledger says was synced (puts back what was removed on the platform by hand)',
    )
    .option('--wait', 'if another process runs this job, wait for it to end instead of stopping')
    .option(
      '--detach',
      'distributed mode: record the plan, hand the run to the workers, print its id and return',
    )
    .option('--json', 'print the outcome as one JSON object (progress and logs stay on standard error)')
    .option(
      '--same-conference',
      'a base URL new to the ledger that answers as a conference it knows (another name for it): sync it as that conference instead of stopping',
    )
    .action(async (jobPath: string, options: RunCliOptions) => {
      if (options.detach && (options.dryRun || options.report !== undefined)) {
        throw new ConfigError(
          '--detach returns before the run is sent: drop --dry-run and --report, and get the results later with `evsync report RUN`.',
          { code: CODE.EVSYNC_USAGE },
        );
      }
      if (options.dryRun && options.report !== undefined) {
        // A report holds the results of a run, and a dry run has none: writing no file (or
        // an empty one) would look like a run that did nothing.
        throw new ConfigError(
          '--report writes the results of a run, and --dry-run sends and records nothing. Drop --report, or keep the plan with `evsync plan JOB --json > FILE`.',
          { code: CODE.EVSYNC_USAGE },
        );
      }
      const job = loadJobFile(jobPath);
      const logger = rootLogger().child({ job: job.name });
      if (options.dryRun) {
        // The exit code the run would end with (README, exit codes), had every call succeeded.
        const planned = await printPlan(job, {
          force: options.force ?? false,
          full: options.full ?? false,
          logger,
          print: (summary) =>
            `Dry run of ${job.name} (${job.mode}): nothing is sent.\n\n${formatPlanSummary(summary)}\n`,
        });
        process.exitCode = planExitCode(planned);
        return;
      }
      await withReportFile(options.report, async (report) => {
        const signals = stopOnSignals(announceStop);
        try {
          const wait = waitNotice(options.wait);
          const engine = await openEngineForEnv({
            rate: job.rate,
            jobName: job.name,
            ...(job.platform ? { platform: job.platform } : {}),
            logger,
            signal: signals.signal,
            ...(wait ? { wait } : {}),
            ...(options.sameConference ? { sameConference: true } : {}),
          });
          // Which conference this run believes it talks to (docs/ledger.md, "A conference by another name").
          logger.info({ conference: engine.deps.ledger.conference?.baseUrl }, conferenceLine(engine.deps));
          // A job without `rate:` sends 10 writes a second: log what is in force, so that a slow
          // import is not a mystery (README, "Using it").
          logger.info(
            { perSecond: job.rate.per_second, concurrency: job.rate.concurrency },
            `sending at most ${job.rate.per_second} writes/s, ${job.rate.concurrency} at a time (the job's rate:; without one, 10/s and 4)`,
          );
          try {
            if (options.detach) {
              await runDetached(engine, job, {
                force: options.force ?? false,
                full: options.full ?? false,
                json: options.json ?? false,
              });
              return;
            }
            const summary = await runJob(engine.deps, {
              job,
              force: options.force ?? false,
              full: options.full ?? false,
            });
            process.exitCode = await finishRunCommand(engine.deps.ledger, summary, report, {
              json: options.json ?? false,
            });
          } finally {
            await engine.close();
          }
        } finally {
          signals.dispose();
        }
      });
    });
}

/** `--detach`: plan and record here; a worker sends the run (see `detachedExecutor`). */
async function runDetached(
  engine: Awaited<ReturnType<typeof openEngineForEnv>>,
  job: LoadedJob,
  { json, ...flags }: { force: boolean; full: boolean; json: boolean },
): Promise<void> {
  if (engine.mode !== 'distributed') {
    throw new ConfigError(
      '--detach hands the run to `evsync worker` processes: set REDIS_URL and DATABASE_URL (README, "Distributed mode").',
      { code: CODE.EVSYNC_USAGE },
    );
  }
  // Lazy: only `--detach` talks to the workers' queue (bullmq, ioredis).
  const [{ requireDistributed }, { connectRedis }, { Schedules }, { DETACHED, detachedExecutor }] =
    await Promise.all([
      import('./schedule.js'),
      import('../../distributed/open-distributed.js'),
      import('../../distributed/schedules.js'),
      import('../../distributed/distributed-executor.js'),
    ]);
  const config = requireDistributed();
  const redis = await connectRedis(config, 'client');
  const control = new Schedules(redis, config.prefix);
  try {
    const summary = await runJob(
      {
        ...engine.deps,
        executor: detachedExecutor(async (runId) => {
          // Until a worker takes it, `evsync runs` and `status` say the run waits for one.
          await engine.deps.ledger.mergeRunOptions(runId, { [HANDED_TO_WORKERS]: true });
          await control.follow(runId);
        }),
      },
      { job, ...flags },
    );
    if (summary.reason !== DETACHED) {
      process.exitCode = await finishRunCommand(engine.deps.ledger, summary, undefined, { json });
      return;
    }
    if (json) {
      process.stdout.write(
        `${JSON.stringify({ runId: summary.run.id, job: job.name, handedToWorkers: true })}\n`,
      );
      return;
    }
    process.stdout.write(
      `${summary.run.id}\nRun ${summary.run.id} (${job.name}) is planned and handed to the workers.\n` +
        `Follow it: evsync status; results: evsync report ${summary.run.id}\n`,
    );
  } finally {
    await control.close();
    redis.disconnect();
  }
}

/** `conference a.example.com`, and the URL it is reached at when that is another name for it. */
function conferenceLine(deps: {
  ledger: { conference: { baseUrl: string } | undefined };
  platform: { baseUrl?: string };
}): string {
  const conference = deps.ledger.conference;
  if (conference === undefined) return 'conference not known';
  const url = deps.platform.baseUrl;
  const reached =
    url !== undefined && conferenceUrl(url) !== conference.baseUrl
      ? ` (reached at ${conferenceHost(conferenceUrl(url))})`
      : '';
  return `conference ${conferenceHost(conference.baseUrl)}${reached}`;
}
