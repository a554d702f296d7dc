import { notSyncedNote } from '../../model/run-record.js';
import type { JobOverview } from '../../sync/notify/job-overview.js';
import { describeMissed } from '../../sync/notify/missed-runs.js';
import { wallMinute } from '../../time/zoned-minute.js';

/** What `evsync status --check` decides: one line, and whether every job is well. */
export interface StatusCheck {
  ok: boolean;
  line: string;
}

/** Statuses of a job's last run that say it is failing. */
const FAILING = ['failed', 'aborted', 'cut off'];

/**
 * A last run a person stopped (Ctrl-C, SIGTERM): no problem of the check, as `run_failed`
 * tells no such stop (docs/notifications.md), but the rows it never sent wait for a resume.
 */
const STOPPED_BY_A_PERSON = 'interrupted';

/**
 * `evsync status --check` for cron and monitoring (docs/notifications.md, "Checks that need
 * no evsync process"): a problem when a job is overdue, its last run failed, aborted or was
 * cut off, its `notify:` rules hold, or a message could not be delivered. A run a person
 * stopped is no problem, but its job is not called well. It reads only the ledger (and
 * Redis for schedules), so it tells a dead worker with no dashboard running.
 */
export function checkJobs(jobs: readonly JobOverview[], zone: string): StatusCheck {
  const problems = jobs.flatMap((job) => {
    const said: string[] = [];
    if (job.overdue)
      said.push(
        `overdue (last success ${job.lastSuccess?.finishedAt ? wallMinute(new Date(job.lastSuccess.finishedAt), zone) : 'never'})`,
      );
    if (job.lastRun && FAILING.includes(job.lastRun.shownStatus))
      said.push(`last run ${job.lastRun.id} ${job.lastRun.shownStatus}${missedNote(job, zone)}`);
    else if (job.notify?.state === 'problem')
      said.push(`told: ${job.notify.problems.map((problem) => problem.rule).join(', ')}`);
    const undelivered = job.notify?.undelivered ?? [];
    if (undelivered.length > 0)
      said.push(`notice not delivered (${undelivered.map((failed) => failed.channel).join(', ')})`);
    return said.length === 0 ? [] : [`${job.job}: ${said.join('; ')}`];
  });
  if (problems.length > 0) return { ok: false, line: `PROBLEM ${problems.join(' | ')}` };
  // Rows that failed or were lost in a completed run, and a run a person stopped, are no
  // problem of the check (a `notify:` rule makes the first one), but the line does not call
  // such a job well: it says what was not sent, and for a stopped run how to finish it.
  const notSynced: string[] = [];
  const stopped: string[] = [];
  for (const { job, lastRun: run } of jobs) {
    if (run === null) continue;
    const note = notSyncedNote(run);
    if (run.shownStatus === STOPPED_BY_A_PERSON)
      stopped.push(
        `the last run of ${job} stopped before its end (${[run.shownStatus, note].filter(Boolean).join(', ')}; ` +
          `finish it with: evsync resume ${run.id})`,
      );
    else if (note !== '') notSynced.push(`${job} (${note})`);
  }
  const notWell = [
    ...(notSynced.length === 0 ? [] : [`rows not synced in the last run of ${notSynced.join(', ')}`]),
    ...stopped,
  ];
  const well =
    `OK ${jobs.length} ${jobs.length === 1 ? 'job' : 'jobs'} on time` +
    (notWell.length === 0 ? ' and well' : `, ${notWell.join(', ')}`);
  // The newest finished run named: a cron log then shows the check saw the night's run. A
  // tick that is running as the check reads is named beside it, since it is no run's end yet,
  // with the runs that failed since the last success, which it may be about to mend.
  const newest = newestFinished(jobs);
  const running = jobs.flatMap((job) => {
    const run = job.lastRun;
    if (run?.shownStatus !== 'running') return [];
    const since = job.sinceSuccess === null ? '' : `, after ${describeMissedRuns(job.sinceSuccess, zone)}`;
    return [`run ${run.id} (${job.job}) running since ${wallMinute(new Date(run.startedAt), zone)}${since}`];
  });
  const named = [
    ...(newest === undefined
      ? []
      : [
          `newest run ${newest.id} (${newest.job}) ${newest.status} at ${wallMinute(new Date(newest.at), zone)}`,
        ]),
    ...running,
  ];
  return { ok: true, line: [well, ...named].join('; ') };
}

/**
 * The newest run that ended, of all jobs: a job's last run, or while that one runs, its last
 * success when no run failed since (the overview's only other run with an end and an id).
 */
function newestFinished(
  jobs: readonly JobOverview[],
): { job: string; id: string; status: string; at: string } | undefined {
  let newest: ReturnType<typeof newestFinished>;
  for (const { job, lastRun, lastSuccess, sinceSuccess } of jobs) {
    const ended =
      lastRun?.finishedAt != null
        ? { job, id: lastRun.id, status: lastRun.shownStatus, at: lastRun.finishedAt }
        : lastSuccess?.finishedAt != null && sinceSuccess === null
          ? { job, id: lastSuccess.id, status: 'completed', at: lastSuccess.finishedAt }
          : undefined;
    if (ended && (newest === undefined || Date.parse(ended.at) > Date.parse(newest.at))) newest = ended;
  }
  return newest;
}

function missedNote(job: JobOverview, zone: string): string {
  const missed = job.sinceSuccess;
  if (missed === null || missed.count < 2) return '';
  return `, ${describeMissedRuns(missed, zone)}`;
}

/** `3 runs aborted from 02:00 to 02:10`: the overview's runs failed since the last success. */
function describeMissedRuns(missed: NonNullable<JobOverview['sinceSuccess']>, zone: string): string {
  return describeMissed({ ...missed, first: new Date(missed.first), last: new Date(missed.last) }, zone);
}
