import type { Command } from 'commander';
import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import { distributedConfigFromEnv, type DistributedConfig } from '../../distributed/distributed-config.js';
import { connectRedis } from '../../distributed/open-distributed.js';
import { Schedules, type ScheduleInfo } from '../../distributed/schedules.js';
import { laneCheck } from '../doctor/lane-check.js';
import { loadJobFile } from '../../sync/job-file.js';

interface ScheduleCliOptions {
  list?: boolean;
  remove?: string;
  json?: boolean;
}

export function registerScheduleCommand(program: Command): void {
  program
    .command('schedule')
    .description(
      "Distributed mode: register a job's schedule (its `schedule:` cron) so that a worker runs it; list or remove schedules.",
    )
    .argument('[job]', 'the job file (YAML) whose schedule to register')
    .option('--list', 'list the schedules and when each fires next')
    .option('--remove <name>', 'remove the schedule of the job with this name')
    .option('--json', 'print the outcome (the schedules, with --list) as JSON')
    .action(async (jobPath: string | undefined, options: ScheduleCliOptions) => {
      const chosen = [jobPath !== undefined, options.list === true, options.remove !== undefined];
      if (chosen.filter(Boolean).length !== 1) {
        throw new ConfigError('Give one of: a job file to schedule, --list, or --remove NAME.', {
          code: CODE.EVSYNC_USAGE,
        });
      }
      const config = requireDistributed();
      const redis = await connectRedis(config, 'client');
      const schedules = new Schedules(redis, config.prefix);
      try {
        if (options.list) {
          const list = await schedules.list();
          process.stdout.write(
            options.json ? `${JSON.stringify(list.map(scheduleJson))}\n` : formatSchedules(list),
          );
        } else if (options.remove !== undefined) {
          const removed = await schedules.remove(options.remove);
          if (!removed) {
            throw new ConfigError(
              `No schedule named "${options.remove}". See them with \`evsync schedule --list\`.`,
              {
                code: CODE.EVSYNC_USAGE,
              },
            );
          }
          process.stdout.write(
            options.json
              ? `${JSON.stringify({ removed: options.remove })}\n`
              : `Removed the schedule of ${options.remove}.\n`,
          );
        } else if (jobPath !== undefined) {
          const job = loadJobFile(jobPath);
          const info = await schedules.register(job);
          const workers = await schedules.workers();
          // Workers connected may all lack the job's key: its runs would then be cut off.
          const lane = await laneCheck({ redis, prefix: config.prefix, job, workers });
          const unserved = lane?.status === 'fail' ? lane : undefined;
          if (options.json) {
            process.stdout.write(
              `${JSON.stringify({ ...scheduleJson(info), workers, ...(unserved ? { lane: unserved.message } : {}) })}\n`,
            );
            return;
          }
          process.stdout.write(
            `Scheduled ${info.name}: "${info.cron}" (${info.timezone}); next run ${formatNext(info)}.\n` +
              (workers === 0
                ? 'No `evsync worker` is connected now: it will not fire until one is (same REDIS_URL and DATABASE_URL).\n'
                : unserved
                  ? `But ${unserved.message}: its runs will be cut off; ${unserved.fix ?? ''}.\n`
                  : `A running \`evsync worker\` starts it then (${workers} connected now).\n`),
          );
        }
      } finally {
        await schedules.close();
        redis.disconnect();
      }
    });
}

/** Distributed mode's settings, or a usage error saying what to set. */
export function requireDistributed(): DistributedConfig {
  const config = distributedConfigFromEnv();
  if (config === undefined) {
    throw new ConfigError(
      'This command works in distributed mode: set REDIS_URL (and DATABASE_URL, the shared ledger). See README, "Distributed mode".',
    );
  }
  return config;
}

export function formatNext(info: Pick<ScheduleInfo, 'next' | 'timezone'>): string {
  if (info.next === undefined) return 'not planned';
  const local = info.next.toLocaleString('sv-SE', { timeZone: info.timezone }).slice(0, 16);
  return `${local} ${info.timezone} (${info.next.toISOString()})`;
}

/** A schedule as `--json` prints it: the next fire time in ISO 8601 (UTC), null when none. */
function scheduleJson(info: ScheduleInfo): Record<string, unknown> {
  return {
    name: info.name,
    cron: info.cron,
    timezone: info.timezone,
    next: info.next?.toISOString() ?? null,
    jobFile: info.jobFile,
  };
}

function formatSchedules(list: readonly ScheduleInfo[]): string {
  if (list.length === 0) return 'No schedules. Register one with `evsync schedule JOB.yaml`.\n';
  return list
    .map(
      (info) => `${info.name}  "${info.cron}" ${info.timezone}  next ${formatNext(info)}  ${info.jobFile}\n`,
    )
    .join('');
}
