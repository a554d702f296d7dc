import type { Ledger } from '../../ledger/ledger.js';
import type { JobNoticeState, NoticeDelivery, NoticeProblem } from '../../ledger/ledger-notices.js';
import { runConferenceHost } from '../../model/conference.js';
import type { ActionCounts } from '../../model/result-records.js';
import { type RunRecord, runTrigger, waitsForWorker } from '../../model/run-record.js';
import { sameChannel } from './channel-name.js';
import { isOverdue, periodOf } from './job-problems.js';
import { missedScheduleGraceMs, notifySettingsOf } from './notify-settings.js';
import { missedRuns, type MissedRuns } from './missed-runs.js';

/** A grace for `overdue` when the job sets none: a quarter of an hour, at most one period. */
const DEFAULT_GRACE_MS = 15 * 60_000;

/** A registered schedule as the overview needs it. */
export interface OverviewSchedule {
  name: string;
  cron: string;
  timezone: string;
  next: Date | undefined;
}

/** One job as a person sees it first thing: how its last run ended, its last success, what comes next. */
export interface JobOverview {
  job: string;
  conference: string | null;
  lastRun: {
    id: string;
    status: string;
    /** `cut off`: running, its process gone; `waiting for a worker`: detached, not taken yet. */
    shownStatus: string;
    trigger: string;
    startedAt: string;
    finishedAt: string | null;
    /** A cut-off run's last result: where it stopped. */
    cutOffAt?: string;
    counts: ActionCounts;
    /** Rows lost for want of data (`RunRecord.lost`); 0 when none. */
    lost: number;
    /** A filtered retry's rows left failing outside its filter (`RunRecord.failedOutside`); absent when none. */
    failedOutside?: number;
  } | null;
  lastSuccess: { id: string; finishedAt: string | null } | null;
  /**
   * The runs that failed or aborted since the last success (or ever, without one): what
   * happened in the night, "4 aborted since 22:42". Null when none did.
   */
  sinceSuccess: { count: number; byStatus: MissedRuns['byStatus']; first: string; last: string } | null;
  schedule: { cron: string; timezone: string } | null;
  next: string | null;
  /** The schedule's zone, when scheduled: what `status` shows times in when all jobs share it. */
  timezone: string | null;
  /** Scheduled, and nothing completed for longer than a period plus the grace. */
  overdue: boolean;
  /** Present when the job has `notify:` settings. */
  notify: {
    state: 'ok' | 'problem';
    problems: NoticeProblem[];
    since: string;
    /** Channels whose newest message could not be delivered. */
    undelivered: Array<Pick<NoticeDelivery, 'channel' | 'error' | 'attempts' | 'event'> & { at: string }>;
  } | null;
}

/**
 * Every job that has run or is scheduled (docs/notifications.md, "What a person sees first"):
 * what `evsync status`, its `--json` and the dashboard's runs page show.
 */
export async function jobOverviews(
  ledger: Ledger,
  schedules: readonly OverviewSchedule[],
  now = new Date(),
): Promise<JobOverview[]> {
  const [jobRuns, states] = await Promise.all([ledger.jobRuns(), ledger.notices().states()]);
  // One entry per job and conference (a job name may run against several, each with its own
  // notices: migration 13); a scheduled job that never ran has one, of no conference.
  const entries: Array<{ job: string; conferenceId: number | null }> = jobRuns.map((runs) => ({
    job: runs.jobName,
    conferenceId: runs.conferenceId,
  }));
  for (const name of schedules.map((s) => s.name))
    if (!entries.some((entry) => entry.job === name)) entries.push({ job: name, conferenceId: null });
  entries.sort((a, b) => a.job.localeCompare(b.job) || (a.conferenceId ?? 0) - (b.conferenceId ?? 0));
  return Promise.all(
    entries.map(async ({ job, conferenceId }): Promise<JobOverview> => {
      const runs = jobRuns.find((j) => j.jobName === job && j.conferenceId === conferenceId);
      const schedule = schedules.find((s) => s.name === job);
      const state = states.find((s) => s.jobName === job && s.conferenceId === (conferenceId ?? 0));
      const settings = notifySettingsOf(state?.settings);
      const last = runs?.last;
      const cutOff = last?.status === 'running' && (await ledger.processGone(last));
      // On time is a run that ran to its end, as the `missed_schedule` rule counts: rows that
      // failed or were lost make it no success, not a schedule missed.
      const since = runs?.lastCompleted?.finishedAt ?? last?.startedAt;
      const missed = await missedRuns(
        ledger,
        job,
        runs?.lastSuccess?.finishedAt ?? new Date(0),
        conferenceId ?? undefined,
      );
      const period = schedule ? periodOf(schedule, now) : undefined;
      const grace =
        (settings && missedScheduleGraceMs(settings.when)) ??
        Math.min(DEFAULT_GRACE_MS, period ?? DEFAULT_GRACE_MS);
      return {
        job,
        conference: last ? runConferenceHost(last) : null,
        // A cut-off run stopped at its last result, not at its start (`runTook`).
        lastRun: last
          ? lastRunOf(last, cutOff ? ((await ledger.lastResultAt(last.id)) ?? last.startedAt) : undefined)
          : null,
        lastSuccess: runs?.lastSuccess
          ? { id: runs.lastSuccess.id, finishedAt: runs.lastSuccess.finishedAt?.toISOString() ?? null }
          : null,
        sinceSuccess: missed
          ? { ...missed, first: missed.first.toISOString(), last: missed.last.toISOString() }
          : null,
        schedule: schedule ? { cron: schedule.cron, timezone: schedule.timezone } : null,
        timezone: schedule?.timezone ?? zoneOfRun(last),
        next: schedule?.next?.toISOString() ?? null,
        overdue: schedule !== undefined && since != null && isOverdue(schedule, since, now, grace),
        notify: state ? await noticeOf(ledger, state) : null,
      };
    }),
  );
}

/** The zone a job's run recorded (its schedule's when it had one), else null. */
function zoneOfRun(run: RunRecord | undefined): string | null {
  const zone = run?.options.timezone;
  return typeof zone === 'string' ? zone : null;
}

function lastRunOf(run: RunRecord, cutOffAt: Date | undefined): NonNullable<JobOverview['lastRun']> {
  return {
    id: run.id,
    status: run.status,
    shownStatus:
      cutOffAt !== undefined ? 'cut off' : waitsForWorker(run) ? 'waiting for a worker' : run.status,
    trigger: runTrigger(run),
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
    ...(cutOffAt === undefined ? {} : { cutOffAt: cutOffAt.toISOString() }),
    counts: run.counts,
    lost: run.lost ?? 0,
    ...(run.failedOutside ? { failedOutside: run.failedOutside } : {}),
  };
}

async function noticeOf(
  ledger: Ledger,
  { jobName, conferenceId, problems, changedAt: since }: JobNoticeState,
): Promise<NonNullable<JobOverview['notify']>> {
  const newest = new Map<string, NoticeDelivery>();
  for (const delivery of await ledger.notices().deliveries({ jobName, conferenceId, limit: 20 })) {
    const channel = sameChannel(delivery.channel);
    if (!newest.has(channel)) newest.set(channel, delivery);
  }
  return {
    state: problems.length > 0 ? 'problem' : 'ok',
    problems,
    since: since.toISOString(),
    undelivered: [...newest.values()]
      .filter((d) => d.status === 'failed')
      .map((d) => ({
        channel: d.channel,
        error: d.error,
        attempts: d.attempts,
        event: d.event,
        at: (d.finishedAt ?? d.createdAt).toISOString(),
      })),
  };
}
