import { CODE } from '../errors/codes.js';
import { EvsyncError } from '../errors/evsync-error.js';
import { unknownRunError } from '../ledger/ledger-error.js';
import type { Ledger } from '../ledger/ledger.js';
import type { Logger } from '../log/logger.js';
import type { RunRecord } from '../model/run-record.js';
import { openEngineForEnv } from '../distributed/engine-for-env.js';
import type { PlatformClient } from '../platform/platform-client.js';
import type { DriftEntry } from '../sync/audit/drift.js';
import { repairDrift } from '../sync/audit/repair-drift.js';
import { loadJobFile, type JobFile, type LoadedJob } from '../sync/job-file.js';
import type { OpenEngine } from '../sync/runs/open-engine.js';
import { resumeRun } from '../sync/runs/resume-run.js';
import { jobFileOf } from '../sync/runs/restore-params.js';
import { retryRun, type RetryFilter } from '../sync/runs/retry-run.js';
import { runJob } from '../sync/runs/run-job.js';
import { rateOfRun } from '../sync/runs/run-rate.js';
import { platformRefOfRun } from '../config/conference.js';
import { LiveProgress, type LiveRuns } from './live-progress.js';

/** What a dashboard action answers at once: the run that now goes on in the background. */
export interface ActionStarted {
  runId: string;
}

export interface RunActionsOptions {
  ledger: Ledger;
  logger: Logger;
  live: LiveRuns;
  /** A client instead of one from `EVSYNC_*` (tests against a sandbox). */
  client?: PlatformClient;
}

type Engine = OpenEngine & { mode: 'inline' | 'distributed' };

/**
 * Retry, resume and run again, as `evsync retry`, `evsync resume` and `evsync run` do them
 * (the same engine functions, the same job lock and run claim), in this process and in the
 * background: the request is answered as soon as the run exists, and the page follows it.
 * In distributed mode the engine hands the intents to the workers, as the CLI's does.
 */
export class RunActions {
  private readonly running = new Set<Promise<unknown>>();
  private readonly stop = new AbortController();

  constructor(private readonly options: RunActionsOptions) {}

  /** A new run of the failed intents matching `filter` (`EVSYNC_NOTHING_TO_RETRY` if none). */
  retry(runId: string, filter: RetryFilter): Promise<ActionStarted> {
    return this.start(runId, 'retryOf', async (engine) => {
      const outcome = await retryRun(engine.deps, runId, filter);
      if (!outcome.summary) {
        throw new EvsyncError(outcome.nothingToRetry, { code: CODE.EVSYNC_NOTHING_TO_RETRY });
      }
      return outcome.summary.run;
    });
  }

  /** Finishes the run itself: its page is the one to follow. */
  resume(runId: string): Promise<ActionStarted> {
    return this.start(runId, 'runId', async (engine) => (await resumeRun(engine.deps, runId)).run, {
      knownRunId: runId,
    });
  }

  /** A new run of the job the run was made from, read again from its sources. */
  async rerun(runId: string): Promise<ActionStarted> {
    const run = await this.options.ledger.getRun(runId);
    if (!run) throw unknownRunError(runId);
    const file = await jobFileOf(this.options.ledger, run);
    if (file === undefined) {
      throw new EvsyncError(
        `Run ${runId} does not name the job file it was run from, so the dashboard cannot run it again: run the job with \`evsync run JOB_FILE\`.`,
        { code: CODE.EVSYNC_RUN_NO_JOB_FILE },
      );
    }
    const job = loadJobFile(file);
    return this.start(
      runId,
      'rerunOf',
      async (engine) => (await runJob(engine.deps, { job, rerunOf: runId })).run,
      {
        rate: job.rate,
      },
    );
  }

  /**
   * Puts right what an audit of the run's job found (`repairDrift`, docs/audit.md
   * "Repair"): a new run with trigger `audit`, through the workers in distributed mode as
   * the other actions (the CLI's `--repair` sends from its own process).
   */
  repair(runId: string, job: LoadedJob, drift: readonly DriftEntry[]): Promise<ActionStarted> {
    return this.start(runId, 'auditOf', async (engine) => (await repairDrift(engine.deps, job, drift)).run, {
      rate: job.rate,
    });
  }

  /**
   * Other work of the dashboard's in the background (an audit): told to stop by `close()`
   * through the signal, and waited for, as the actions are.
   */
  track<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const task = work(this.stop.signal);
    this.running.add(task);
    void task.catch(() => undefined).finally(() => this.running.delete(task));
    return task;
  }

  /** Stops taking new work in every action going on and waits for them to end. */
  async close(): Promise<void> {
    this.stop.abort();
    await Promise.allSettled([...this.running]);
  }

  /**
   * Opens an engine on the dashboard's ledger (wrapped to see the run being created, or
   * resumed), starts `work`, and resolves with that run's id once it exists, or rejects
   * with what stopped `work` before (a busy job, nothing to retry). What fails after is
   * logged and shows on the run's page.
   */
  private async start(
    runId: string,
    logAs: 'runId' | 'retryOf' | 'rerunOf' | 'auditOf',
    work: (engine: Engine) => Promise<RunRecord>,
    how: { knownRunId?: string; rate?: JobFile['rate'] } = {},
  ): Promise<ActionStarted> {
    const { ledger, logger, live, client } = this.options;
    const base = await ledger.getRun(runId);
    if (!base) throw unknownRunError(runId);
    const progress = new LiveProgress();
    const seen = watchRunStart(ledger, how.knownRunId, (id) => live.follow(id, progress));
    const engineLogger = logger.child({ job: base.jobName, [logAs]: runId });
    const task = (async () => {
      const engine = await openEngineForEnv({
        rate: how.rate ?? rateOfRun(base),
        jobName: base.jobName,
        platform: platformRefOfRun(base),
        logger: engineLogger,
        signal: this.stop.signal,
        ledger: seen.ledger,
        progress,
        // Its actions run side by side in this process: each call says its run.
        severalRuns: true,
        ...(client ? { client } : {}),
        // A run `--same-conference` recorded is acted on as it was sent (`conferenceOfRun`).
        ...(base.conference ? { conferenceOfRun: base.conference.id } : {}),
      });
      try {
        return await work(engine);
      } finally {
        progress.close();
        await engine.close();
      }
    })();
    this.running.add(task);
    void task
      .catch((error: unknown) => engineLogger.error({ err: error }, 'dashboard action failed'))
      .finally(() => this.running.delete(task));
    const first = await Promise.race([seen.started, task]);
    return { runId: first.id };
  }
}

/**
 * The ledger as the engine sees it, but telling `onStart` the run that starts: the first
 * one created (a retry, a run), or `knownRunId` once it is set running (a resume).
 */
function watchRunStart(
  ledger: Ledger,
  knownRunId: string | undefined,
  onStart: (runId: string) => void,
): { ledger: Ledger; started: Promise<RunRecord> } {
  let resolve!: (run: RunRecord) => void;
  const started = new Promise<RunRecord>((done) => (resolve = done));
  let told = false;
  const tell = (run: RunRecord): void => {
    if (told) return;
    told = true;
    onStart(run.id);
    resolve(run);
  };
  // The engine creates its run through the ledger of the run's conference
  // (`forConference`, migration 8): that view is watched too.
  const watch = (of: Ledger): Ledger =>
    new Proxy(of, {
      get(target, name) {
        if (name === 'forConference') {
          return (...args: Parameters<Ledger['forConference']>) => watch(target.forConference(...args));
        }
        if (name === 'createRun') {
          return async (...args: Parameters<Ledger['createRun']>) => {
            const run = await target.createRun(...args);
            tell(run);
            return run;
          };
        }
        if (name === 'setRunStatus' && knownRunId !== undefined) {
          return async (...args: Parameters<Ledger['setRunStatus']>) => {
            await target.setRunStatus(...args);
            const run = args[0] === knownRunId ? await target.getRun(knownRunId) : undefined;
            if (run) tell(run);
          };
        }
        const value: unknown = Reflect.get(target, name, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  return { ledger: watch(ledger), started };
}
