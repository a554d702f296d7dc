import type { Ledger } from '../../ledger/ledger.js';
import type { Logger } from '../../log/logger.js';
import { reviewJob } from './review-job.js';
import { ledgerForNotice } from './notice-scope.js';

/** A registered schedule as the watch needs it: the job's name, its pattern and zone. */
export interface WatchedSchedule {
  name: string;
  cron: string;
  timezone: string;
}

export interface NoticeWatchOptions {
  ledger: Ledger;
  logger?: Logger | undefined;
  /** The schedules registered now (distributed mode); none when not given or when it fails. */
  schedules?: () => Promise<WatchedSchedule[]>;
  /** @defaultValue `EVSYNC_NOTIFY_CHECK_SECONDS`, else 60 s */
  intervalMs?: number;
}

/**
 * What no run's end tells: a run cut off (its process gone) and a schedule with no completed
 * run within its period plus grace. Every worker and the dashboard look at each job with
 * `notify:` settings this often; the ledger's compare-and-set makes one of them tell
 * (docs/notifications.md, "Who looks").
 */
export function watchNotices(options: NoticeWatchOptions): { stop(): Promise<void> } {
  const intervalMs = options.intervalMs ?? checkIntervalMs(process.env);
  let running: Promise<void> | undefined;
  const look = async (): Promise<void> => {
    const states = await options.ledger.notices().states();
    if (states.length === 0) return;
    const schedules = (await options.schedules?.().catch(() => undefined)) ?? [];
    for (const state of states) {
      const schedule = schedules.find((item) => item.name === state.jobName);
      // Each state is of one conference: the review reads that conference's runs.
      const ledger = await ledgerForNotice(options.ledger, state.conferenceId);
      await reviewJob(
        { ledger, logger: options.logger },
        state.jobName,
        schedule ? { schedule: { cron: schedule.cron, timezone: schedule.timezone } } : {},
      );
    }
  };
  const timer = setInterval(() => {
    if (running) return;
    running = look()
      .catch((error: unknown) =>
        options.logger?.warn(
          { error: error instanceof Error ? error.message : String(error) },
          'notification watch failed',
        ),
      )
      .finally(() => (running = undefined));
  }, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}

function checkIntervalMs(env: NodeJS.ProcessEnv): number {
  const seconds = Number(env.EVSYNC_NOTIFY_CHECK_SECONDS);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 60_000;
}
