import type { Ledger } from '../../ledger/ledger.js';
import type { JobNoticeState } from '../../ledger/ledger-notices.js';
import type { Logger } from '../../log/logger.js';
import type { RunRecord } from '../../model/run-record.js';
import type { LoadedJob } from '../job-file.js';
import { deliverNotice } from './deliver-notice.js';
import { deliverInBackground } from './background-deliveries.js';
import { problemsOf, stateKeyOf, type JobFacts } from './job-problems.js';
import { meaningOf, noticeConference, noticeRun, type Notice } from './notice-message.js';
import { causeOf, errorsWorthTelling } from './notice-cause.js';
import { describeMissed, missedRuns } from './missed-runs.js';
import type { ErrorGroup } from '../../ledger/ledger-insights.js';
import { processZone } from '../../time/zoned-minute.js';
import { notifySettingsOf } from './notify-settings.js';

/** Error groups a message lists. */
const ERROR_GROUPS = 5;

export interface ReviewDeps {
  ledger: Ledger;
  logger?: Logger | undefined;
  /** @defaultValue `process.env` */
  env?: NodeJS.ProcessEnv;
  now?: () => Date;
}

/** What a review did: the job's state before and after, and whether a message went out. */
export interface ReviewOutcome {
  from: string;
  to: string;
  told: boolean;
}

/**
 * Keeps a job's `notify:` settings as its run carries them, so that retries, resumes, the
 * watch and a tick whose job file broke tell the same people (docs/notifications.md). A job
 * file without `notify:` forgets them.
 */
export async function keepNoticeSettings(
  ledger: Ledger,
  job: Pick<LoadedJob, 'name' | 'notify'>,
): Promise<void> {
  if (job.notify !== undefined) await ledger.notices().saveSettings(job.name, job.notify);
  else if ((await ledger.notices().state(job.name)) !== undefined) await ledger.notices().forget(job.name);
}

/**
 * Looks at a job as its `notify:` rules do and, when the rules that hold changed, tells the
 * channels once: `problem` when a rule holds that did not, `recovered` when none holds any
 * more (unless `back_to_normal: false`). The change is made in the ledger before anything
 * is sent, compared and set in one statement, so that of several processes looking at
 * once, one tells. Never throws: a review that fails is logged.
 */
export async function reviewJob(
  deps: ReviewDeps,
  jobName: string,
  options: {
    schedule?: JobFacts['schedule'];
    /**
     * Deliver after returning (`deliverInBackground`): what a run's end does, so that the job's
     * lock is released before a receiver is waited for. @defaultValue `false`
     */
    background?: boolean;
  } = {},
): Promise<ReviewOutcome | undefined> {
  try {
    const state = await deps.ledger.notices().state(jobName);
    if (state === undefined) return undefined;
    const settings = notifySettingsOf(state.settings);
    if (settings === undefined) return undefined;
    const facts = await jobFacts(deps.ledger, jobName, options.schedule, deps.now?.() ?? new Date());
    const problems = problemsOf(settings.when, facts);
    const to = stateKeyOf(problems);
    if (to === state.stateKey) return { from: state.stateKey, to, told: false };
    const changed = await deps.ledger
      .notices()
      .changeState(jobName, state.stateKey, { problems, stateKey: to, runId: facts.last?.id ?? null });
    if (!changed) return { from: state.stateKey, to, told: false };
    const event = to === '' ? 'recovered' : 'problem';
    deps.logger?.info({ job: jobName, from: state.stateKey || 'ok', to: to || 'ok' }, 'job state changed');
    if (event === 'recovered' && !settings.when.back_to_normal)
      return { from: state.stateKey, to, told: false };
    const env = deps.env ?? process.env;
    const told = event === 'problem' ? problems : state.problems;
    const notice = await noticeOf(deps.ledger, state, event, told, facts, env);
    const deliver = () =>
      deliverNotice({ notices: deps.ledger.notices(), env, logger: deps.logger }, settings, notice);
    if (options.background) deliverInBackground(deliver, deps.logger);
    else await deliver();
    return { from: state.stateKey, to, told: true };
  } catch (error) {
    deps.logger?.warn(
      { job: jobName, error: error instanceof Error ? error.message : String(error) },
      'notification review failed',
    );
    return undefined;
  }
}

/** The job's runs as the rules look at them (`JobFacts`). */
export async function jobFacts(
  ledger: Ledger,
  jobName: string,
  schedule: JobFacts['schedule'],
  now: Date,
): Promise<JobFacts> {
  // The job's runs in the ledger's conference: one job name may run against several, each
  // with its own notices (docs/notifications.md, "One job name, several conferences").
  const conferenceId = ledger.conference?.id;
  const scope = { jobName, ...(conferenceId === undefined ? {} : { conferenceId }) };
  const recent = await ledger.listRuns(20, scope);
  let last: RunRecord | undefined;
  let lastCutOff = false;
  for (const run of recent) {
    if (run.status === 'skipped' || run.status === 'interrupted') continue;
    if (run.status === 'running') {
      if (!(await ledger.processGone(run))) continue;
      lastCutOff = true;
    }
    last = run;
    break;
  }
  const completed = await ledger.listRuns(2, { ...scope, statuses: ['completed'] });
  const previousCompleted = completed.find((run) => last === undefined || run.seq < last.seq);
  return {
    last,
    lastCutOff,
    lastCompleted: completed[0],
    previousCompleted,
    ...(schedule ? { schedule } : {}),
    now,
  };
}

async function noticeOf(
  ledger: Ledger,
  state: JobNoticeState,
  event: Notice['event'],
  problems: JobNoticeState['problems'],
  facts: JobFacts,
  env: NodeJS.ProcessEnv,
): Promise<Notice> {
  const run = facts.last;
  const counts = run === undefined || run.pruned ? {} : await ledger.resultCounts(run.id);
  const groups = await worthTelling(ledger, run);
  // "Back to normal" names what held until now: the cause of the run it was told about.
  const causeRun =
    event === 'recovered' && state.runId !== null
      ? await ledger.getRun(state.runId).catch(() => undefined)
      : run;
  const cause = causeOf(
    problems,
    causeRun,
    event === 'recovered' ? await worthTelling(ledger, causeRun) : groups,
  );
  const timezone = zoneOf(run, facts.schedule);
  const base = env.EVSYNC_DASHBOARD_URL?.replace(/\/+$/, '');
  return {
    event,
    job: state.jobName,
    conference: noticeConference(run) ?? noticeConference(causeRun),
    cause,
    timezone,
    run: noticeRun(run),
    problems,
    ...(event === 'recovered'
      ? await whatWasMissed(ledger, state, causeRun, run, timezone)
      : { missed: null, left: null }),
    counts,
    errors: groups.slice(0, ERROR_GROUPS).map((group) => ({
      code: group.code,
      meaning: meaningOf(group.code),
      message: group.example,
      count: group.count,
    })),
    link: base && run ? `${base}/runs/${encodeURIComponent(run.id)}` : null,
  };
}

/** The run's error groups a message lists (`errorsWorthTelling`). */
async function worthTelling(ledger: Ledger, run: RunRecord | undefined): Promise<ErrorGroup[]> {
  if (run === undefined || run.pruned) return [];
  return errorsWorthTelling(await ledger.insights().errorGroups(run.id, 50));
}

/** The job's zone: its schedule's, as its run recorded it or the watch knows it; else this process's. */
function zoneOf(run: RunRecord | undefined, schedule: JobFacts['schedule']): string {
  const recorded = run?.options.timezone;
  return typeof recorded === 'string' ? recorded : (schedule?.timezone ?? processZone());
}

/**
 * What a "back to normal" says besides: the runs that failed or aborted since the problem
 * began, and whether the run that ended it left anything to retry. A later completed run
 * sent whatever the aborted ones had not: their plans need no resume.
 */
async function whatWasMissed(
  ledger: Ledger,
  state: JobNoticeState,
  causeRun: RunRecord | undefined,
  last: RunRecord | undefined,
  zone: string,
): Promise<Pick<Notice, 'missed' | 'left'>> {
  const since = causeRun?.startedAt ?? state.changedAt;
  const missed = await missedRuns(ledger, state.jobName, since);
  const failed = last?.counts.failed ?? 0;
  const lost = last?.lost ?? 0;
  const left =
    last === undefined
      ? null
      : failed > 0
        ? `${failed} ${failed === 1 ? 'row' : 'rows'} failed in run ${last.id}: fix them, then \`evsync retry ${last.id}\`.`
        : lost > 0
          ? `${lost} ${lost === 1 ? 'row was' : 'rows were'} lost for want of data in run ${last.id}: ` +
            `\`evsync report ${last.id} --status skipped\` names what each needs; fix that, then run the job again.`
          : last.status === 'completed'
            ? `Nothing is left to resume or retry: run ${last.id} completed and sent what changed meanwhile.`
            : null;
  return { missed: missed ? describeMissed(missed, zone) : null, left };
}
