import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { CODE } from '../errors/codes.js';
import { ConfigError } from '../errors/evsync-error.js';
import { LedgerBusyError } from '../ledger/ledger-error.js';
import type { Logger } from '../log/logger.js';
import { loadJobFile, type LoadedJob } from '../sync/job-file.js';
import { runJob } from '../sync/runs/run-job.js';
import { pruneAfterScheduledRun } from '../sync/prune/prune-after-run.js';
import { resumeRun } from '../sync/runs/resume-run.js';
import { rateOfRun } from '../sync/runs/run-rate.js';
import { platformRefOfRun } from '../config/conference.js';
import { openLedger } from '../ledger/open-ledger.js';
import { unknownRunError } from '../ledger/ledger-error.js';
import { HANDED_TO_WORKERS } from '../model/run-record.js';
import { conferenceConfigIn, runHost } from './conference-refusal.js';
import { abortOnFailure } from '../sync/execute/abort-on-failure.js';
import { openEngineForEnv } from './engine-for-env.js';
import { reportQueueErrors } from './queue-errors.js';
import { messageOf } from '../errors/evsync-error.js';
import { redactUrl } from '../log/redaction.js';
import { reviewJob } from '../sync/notify/review-job.js';
import { ledgerForJob } from '../sync/notify/notice-scope.js';

/** Where schedules fire: a queue of its own, so a run never waits behind intents. */
export const CONTROL_QUEUE = 'control';

const scheduledRunSchema = z.object({ jobFile: z.string().min(1), jobName: z.string().min(1) });
type ScheduledRun = z.infer<typeof scheduledRunSchema>;
/** `evsync run --detach`: a worker carries the run on from its recorded plan. */
const FOLLOW_RUN = 'follow-run';
const followRunSchema = z.object({ runId: z.string().min(1) });
type FollowRun = z.infer<typeof followRunSchema>;
type ControlJob = ScheduledRun | FollowRun;

export interface ScheduleInfo {
  /** The job's name: one schedule per job. */
  name: string;
  cron: string;
  timezone: string;
  jobFile: string;
  /** When it fires next, if BullMQ knows. */
  next: Date | undefined;
}

/**
 * BullMQ's refusal to register a schedule whose run of the moment it computes exists
 * already (`SchedulerJobIdCollision`, `SchedulerJobSlotsBusy` in `addJobScheduler`): the
 * registration's clock was read before that run fired and was taken. Asked again after
 * these waits, in milliseconds.
 */
const SLOT_RETRIES_MS = [250, 500, 1000, 2000];

function isSlotTaken(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === -10 || code === -11;
}

/** The job schedulers of an installation (its Redis prefix). */
export class Schedules {
  private readonly queue: Queue<ControlJob>;

  constructor(connection: Redis, prefix: string) {
    this.queue = new Queue<ControlJob>(CONTROL_QUEUE, { connection, prefix });
    reportQueueErrors(this.queue, 'schedules queue');
  }

  /** Hands a detached run to the workers: one of them sends its recorded plan. */
  async follow(runId: string): Promise<void> {
    const removal = { count: 100 };
    await this.queue.add(
      FOLLOW_RUN,
      { runId },
      { jobId: `follow.${runId}`, removeOnComplete: removal, removeOnFail: removal },
    );
  }

  /** Registers (or replaces) the job's schedule; idempotent. */
  async register(job: LoadedJob): Promise<ScheduleInfo> {
    if (job.schedule === undefined) {
      throw new ConfigError(
        `${job.file} has no schedule: add one, e.g. \`schedule: { cron: "0 2 * * *", tz: Europe/Berlin }\``,
        { code: CODE.EVSYNC_USAGE },
      );
    }
    for (let attempt = 0; ; attempt++) {
      try {
        await this.queue.upsertJobScheduler(
          job.name,
          { pattern: job.schedule.cron, tz: job.schedule.timezone },
          {
            name: 'run-job',
            data: { jobFile: job.file, jobName: job.name },
            opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
          },
        );
        break;
      } catch (error) {
        // The schedule fired as it was registered again: its next run is a worker's already.
        // Once that moment has passed, the next one is free.
        if (isSlotTaken(error) && attempt < SLOT_RETRIES_MS.length) {
          await new Promise((resolve) => setTimeout(resolve, SLOT_RETRIES_MS[attempt]));
          continue;
        }
        throw new ConfigError(
          isSlotTaken(error)
            ? `${job.file}: the schedule of ${job.name} fires as it is registered, again and again (${messageOf(error)}); register it once more`
            : `${job.file}: the schedule "${job.schedule.cron}" (${job.schedule.timezone}) is not a cron pattern BullMQ accepts: ${messageOf(error)}`,
          { code: CODE.EVSYNC_USAGE, cause: error },
        );
      }
    }
    const info = (await this.list()).find((schedule) => schedule.name === job.name);
    if (info === undefined) throw new Error(`schedule ${job.name} was not kept by Redis`);
    return info;
  }

  async list(): Promise<ScheduleInfo[]> {
    const schedulers = await this.queue.getJobSchedulers(0, -1, true);
    return schedulers.map((scheduler) => ({
      name: scheduler.key,
      cron: scheduler.pattern ?? '',
      timezone: scheduler.tz ?? 'UTC',
      jobFile: String((scheduler.template?.data as Partial<ScheduledRun> | undefined)?.jobFile ?? ''),
      next: scheduler.next === undefined ? undefined : new Date(scheduler.next),
    }));
  }

  /** How many workers take scheduled runs now (every `evsync worker` does). */
  async workers(): Promise<number> {
    return (await this.queue.getWorkers()).length;
  }

  /** The control queue's counts by state, in Prometheus text (BullMQ's own export). */
  exportPrometheusMetrics(): Promise<string> {
    return this.queue.exportPrometheusMetrics();
  }

  /** Answers whether there was one. */
  remove(name: string): Promise<boolean> {
    return this.queue.removeJobScheduler(name);
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}

/**
 * Takes control jobs in a worker process: a fired schedule runs its job as `evsync run`
 * would, recorded with trigger `schedule` (when the job's previous run still holds its
 * lock, the run does not start and is recorded as `skipped`, with the reason); a detached
 * run is carried on as `evsync resume` would.
 */
export function startControlWorker(options: {
  connection: Redis;
  prefix: string;
  logger: Logger;
  signal: AbortSignal;
  /** This worker's environment as it is now (a `.env` edited while it runs included). */
  env: () => NodeJS.ProcessEnv;
}): Worker<ControlJob> {
  const toldOf = new Set<string>();
  return new Worker<ControlJob>(
    CONTROL_QUEUE,
    async (job: Job<ControlJob>, token?: string) => {
      // Another worker of the pool may hold the run's conference key: the job goes back for
      // it, as a lane's intents do, for a while; after that the caller ends the run or tick,
      // saying why (`unservedError`).
      const handBack: HandBack = async (refused) => {
        const waiting = Date.now() - job.timestamp < CONTROL_HAND_BACK_MS;
        if (token === undefined || !waiting || job.attemptsStarted >= CONTROL_OFFERS) return;
        if (toldOf.size > 1000) toldOf.clear();
        if (!toldOf.has(job.id ?? '')) {
          toldOf.add(job.id ?? '');
          options.logger.info(
            { control: job.name, conference: refused.host, reason: refused.reason },
            `handing back a ${job.name === FOLLOW_RUN ? 'detached' : 'scheduled'} run of ${refused.host}: this worker cannot sign for it; another worker takes it`,
          );
        }
        await job.moveToDelayed(
          Date.now() + CONTROL_REFUSED_DELAY_MS + Math.floor(Math.random() * 500),
          token,
        );
        throw new DelayedError();
      };
      const env = options.env();
      if (job.name === FOLLOW_RUN) {
        const { runId } = followRunSchema.parse(job.data);
        const logger = options.logger.child({ runId, trigger: 'detached' });
        return followRun(runId, { logger, signal: options.signal, env, handBack });
      }
      const data = scheduledRunSchema.parse(job.data);
      const logger = options.logger.child({ job: data.jobName, trigger: 'schedule' });
      return runScheduled(data, { logger, signal: options.signal, env, handBack });
    },
    { connection: options.connection, prefix: options.prefix, concurrency: 2 },
  );
}

/** How long a detached or scheduled run waits for a worker that can sign for its conference. */
export const CONTROL_HAND_BACK_MS = 60_000;
/** A run handed back is offered again this much later (plus up to half a second). */
const CONTROL_REFUSED_DELAY_MS = 2_000;
/** Offers at most, whatever the clock says: a job handed back never circulates for ever. */
const CONTROL_OFFERS = 100;

/** Why this worker cannot sign for a control job's conference, for its log and its run. */
interface Refusal {
  host: string;
  reason: string;
}

/**
 * Throws `DelayedError` once the job is back in the queue for another worker; returns when
 * it has waited long enough, and the run or tick is to end (`unservedError`).
 */
type HandBack = (refused: Refusal) => Promise<void>;

interface ControlRun {
  logger: Logger;
  signal: AbortSignal;
  /** This worker's environment: whether it holds the run's conference key. */
  env: NodeJS.ProcessEnv;
  handBack: HandBack;
}

/** What a run or tick no worker could sign for ends with. */
function unservedError(refused: Refusal): ConfigError {
  const waited = Math.round(CONTROL_HAND_BACK_MS / 1000);
  return new ConfigError(
    `no worker that can sign for ${refused.host} took this run within ${waited} s (the last one asked: ${refused.reason}); ` +
      "start an `evsync worker` whose environment has the job's platform variables",
    { code: CODE.EVSYNC_CONFERENCE_UNSERVED },
  );
}

/** A detached run's recorded plan, sent as `evsync resume` sends it. */
async function followRun(runId: string, { logger, signal, env, handBack }: ControlRun): Promise<string> {
  const ledger = await openLedger();
  try {
    const run = await ledger.getRun(runId);
    if (run === undefined) throw unknownRunError(runId);
    const found = conferenceConfigIn(platformRefOfRun(run), run.conference?.baseUrl ?? null, env);
    if ('refused' in found) {
      const refused = { host: runHost(run), reason: found.refused };
      await handBack(refused);
      // Nobody could sign for it in time: it ends, and its job's channels are told.
      const error = unservedError(refused);
      await abortOnFailure(ledger, runId, error);
      logger.error({ reason: error.message }, 'detached run aborted: no worker could sign for it');
      await reviewJob({ ledger: await ledgerForJob(ledger, run.jobName), logger }, run.jobName);
      return `${runId} aborted`;
    }
    await ledger.mergeRunOptions(runId, { [HANDED_TO_WORKERS]: false });
    // The command that detached it holds the job until it has handed the run over.
    const wait = (holder: string): void => logger.info({ holder }, 'waiting for the job to be let go');
    const engine = await openEngineForEnv({
      rate: rateOfRun(run),
      jobName: run.jobName,
      platform: platformRefOfRun(run),
      logger,
      signal,
      ledger,
      wait,
    });
    try {
      const summary = await resumeRun(engine.deps, runId);
      return `${summary.run.id} ${summary.run.status}`;
    } finally {
      await engine.close();
    }
  } finally {
    await ledger.close();
  }
}

async function runScheduled(
  data: ScheduledRun,
  { logger, signal, env, handBack }: ControlRun,
): Promise<string> {
  let job: LoadedJob;
  try {
    job = loadJobFile(data.jobFile);
  } catch (error) {
    return recordFailedTick(data, error, logger);
  }
  const found = conferenceConfigIn(job.platform, null, env);
  if ('refused' in found) {
    const refused = { host: `the conference of ${data.jobName}`, reason: found.refused };
    await handBack(refused);
    return recordFailedTick(data, unservedError(refused), logger);
  }
  const newestBefore = await newestRunSeq(data.jobName);
  let engine: Awaited<ReturnType<typeof openEngineForEnv>>;
  try {
    engine = await openEngineForEnv({
      rate: job.rate,
      jobName: job.name,
      logger,
      signal,
      ...(job.platform ? { platform: job.platform } : {}),
    });
  } catch (error) {
    return recordFailedTick(data, error, logger);
  }
  try {
    const summary = await runJob(engine.deps, { job, trigger: 'schedule' });
    // The job's retention, once its run is done; a failure is logged, the run's outcome stands.
    await pruneAfterScheduledRun(engine.deps.ledger, job, logger);
    return `${summary.run.id} ${summary.run.status}`;
  } catch (error) {
    if (error instanceof LedgerBusyError && error.code === CODE.EVSYNC_JOB_BUSY) {
      const reason = `not started: ${error.holder}, and a scheduled run never overlaps its job's previous run`;
      const run = await engine.deps.ledger.createRun({
        jobName: job.name,
        mode: job.mode,
        options: { file: job.file, trigger: 'schedule', skipped: reason },
      });
      await engine.deps.ledger.finishRun(run.id, 'skipped', {});
      logger.warn({ runId: run.id, reason }, 'scheduled run skipped');
      return `${run.id} skipped`;
    }
    // A run that exists ended with its own status (and told its job's channels).
    if ((await newestRunSeq(data.jobName)) !== newestBefore) throw error;
    return recordFailedTick(data, error, logger);
  } finally {
    await engine.close();
  }
}

/** The `seq` of the job's newest run, to tell whether a tick created one. */
async function newestRunSeq(jobName: string): Promise<number | undefined> {
  const ledger = await openLedger();
  try {
    return (await ledger.listRuns(1, { jobName }))[0]?.seq;
  } finally {
    await ledger.close();
  }
}

/**
 * A tick that failed before its run existed (its job file invalid or gone, its conference's
 * variables missing, a source too short): recorded as a `failed` run with the reason, so that
 * `runs`, `status` and the dashboard show it, and told as any failed run is, through the
 * `notify:` settings the job's last run left (docs/notifications.md).
 */
async function recordFailedTick(data: ScheduledRun, error: unknown, logger: Logger): Promise<string> {
  const reason = redactUrl(messageOf(error));
  const opened = await openLedger();
  try {
    // Recorded in, and told to, the conference the job last ran against: its notices are that one's.
    const ledger = await ledgerForJob(opened, data.jobName);
    const run = await ledger.createRun({
      jobName: data.jobName,
      mode: 'upsert',
      options: { file: data.jobFile, trigger: 'schedule', error: reason },
    });
    await ledger.finishRun(run.id, 'failed', {});
    logger.error({ runId: run.id, reason }, 'scheduled run failed before it started');
    await reviewJob({ ledger, logger }, data.jobName);
    return `${run.id} failed`;
  } finally {
    await opened.close();
  }
}
