import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { CODE } from '../errors/codes.js';
import { ConfigError } from '../errors/evsync-error.js';
import { LedgerBusyError } from '../ledger/ledger-error.js';
import type { Logger } from '../log/logger.js';
import { loadJobFile, type LoadedJob } from '../sync/job-file.js';
import { runJob } from '../sync/runs/run-job.js';
import { openEngineForEnv } from './open-distributed.js';

/** Where schedules fire: a queue of its own, so a run never waits behind intents. */
export const CONTROL_QUEUE = 'control';

const scheduledRunSchema = z.object({ jobFile: z.string().min(1), jobName: z.string().min(1) });
type ScheduledRun = z.infer<typeof scheduledRunSchema>;

export interface ScheduleInfo {
  /** The job's name: one schedule per job. */
  name: string;
  cron: string;
  timezone: string;
  jobFile: string;
  /** When it fires next, if BullMQ knows. */
  next: Date | undefined;
}

/** The job schedulers of an installation (its Redis prefix). */
export class Schedules {
  private readonly queue: Queue<ScheduledRun>;

  constructor(connection: Redis, prefix: string) {
    this.queue = new Queue<ScheduledRun>(CONTROL_QUEUE, { connection, prefix });
  }

  /** Registers (or replaces) the job's schedule; idempotent. */
  async register(job: LoadedJob): Promise<ScheduleInfo> {
    if (job.schedule === undefined) {
      throw new ConfigError(
        `${job.file} has no schedule: add one, e.g. \`schedule: { cron: "0 2 * * *", tz: Europe/Berlin }\``,
        { code: CODE.EVSYNC_USAGE },
      );
    }
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
    } catch (error) {
      throw new ConfigError(
        `${job.file}: the schedule "${job.schedule.cron}" (${job.schedule.timezone}) is not a cron pattern BullMQ accepts: ${error instanceof Error ? error.message : String(error)}`,
        { code: CODE.EVSYNC_USAGE, cause: error },
      );
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
      jobFile: String(scheduler.template?.data?.jobFile ?? ''),
      next: scheduler.next === undefined ? undefined : new Date(scheduler.next),
    }));
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
 * Takes fired schedules in a worker process and runs each job as `evsync run` would,
 * recorded with trigger `schedule`. When the job's previous run still holds its lock, the
 * run does not start and is recorded as `skipped`, with the reason.
 */
export function startScheduleWorker(options: {
  connection: Redis;
  prefix: string;
  logger: Logger;
  signal: AbortSignal;
}): Worker<ScheduledRun> {
  return new Worker<ScheduledRun>(
    CONTROL_QUEUE,
    async (job: Job<ScheduledRun>) => {
      const data = scheduledRunSchema.parse(job.data);
      return runScheduled(
        data,
        options.logger.child({ job: data.jobName, trigger: 'schedule' }),
        options.signal,
      );
    },
    { connection: options.connection, prefix: options.prefix, concurrency: 2 },
  );
}

async function runScheduled(data: ScheduledRun, logger: Logger, signal: AbortSignal): Promise<string> {
  const job = loadJobFile(data.jobFile);
  const engine = await openEngineForEnv({ rate: job.rate, logger, signal });
  try {
    const summary = await runJob(engine.deps, { job, trigger: 'schedule' });
    return `${summary.run.id} ${summary.run.status}`;
  } catch (error) {
    if (!(error instanceof LedgerBusyError) || error.code !== CODE.EVSYNC_JOB_BUSY) throw error;
    const reason = `not started: ${error.holder}, and a scheduled run never overlaps its job's previous run`;
    const run = await engine.deps.ledger.createRun({
      jobName: job.name,
      mode: job.mode,
      options: { file: job.file, trigger: 'schedule', skipped: reason },
    });
    await engine.deps.ledger.finishRun(run.id, 'skipped', {});
    logger.warn({ runId: run.id, reason }, 'scheduled run skipped');
    return `${run.id} skipped`;
  } finally {
    await engine.close();
  }
}
