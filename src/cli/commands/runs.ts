import { totalsOf } from '../../model/result-records.js';
import { textTable } from '../../report/text-table.js';
import type { Command } from 'commander';
import { openLedger } from '../../ledger/open-ledger.js';
import { runConferenceHost } from '../../model/conference.js';
import {
  RUN_STATUSES,
  type RunRecord,
  type RunStatus,
  runTook,
  runTrigger,
  tookNote,
} from '../../model/run-record.js';
import type { RunListFilter } from '../../ledger/ledger.js';
import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import { waitsForWorker } from '../../model/run-record.js';
import { prunedMarker } from '../../sync/prune/pruned-note.js';
import { supersededBy } from '../../sync/runs/superseded.js';
import { ageMs } from '../../config/retention.js';

export function registerRunsCommand(program: Command): void {
  program
    .command('runs')
    .description('List recent runs, newest first.')
    .option('--limit <n>', 'how many', '20')
    .option('--job <name>', 'only the runs of this job')
    .option(
      '--status <status>',
      `only runs that ended so (${RUN_STATUSES.join(', ')}); several separated by commas`,
    )
    .option('--trigger <trigger>', 'only runs started so: manual, schedule, retry or audit')
    .option(
      '--since <when>',
      'only runs started since: a date (2026-11-26, 2026-11-26T02:00Z) or an age (12h, 7d)',
    )
    .option('--json', 'print JSON')
    .action(async (options: RunsCliOptions) => {
      const filter = runFilterOf(options);
      const limit = Number(options.limit);
      if (!/^\d+$/.test(options.limit.trim()) || limit < 1)
        throw new ConfigError(
          `--limit ${options.limit}: write how many runs to list, a whole number from 1.`,
          {
            code: CODE.EVSYNC_USAGE,
          },
        );
      const ledger = await openLedger();
      try {
        const listed = await ledger.listRuns(limit, filter);
        const runs: ListedRun[] = await Promise.all(
          listed.map(async (run) => {
            const gone = await ledger.processGone(run);
            // A stopped run that a later one superseded has nothing left to send (a resume
            // closes it): said instead of "finish it" (runs/superseded.ts).
            const later = gone || run.status === 'aborted' ? await supersededBy(ledger, run) : undefined;
            // A cut-off run took until its last result, not until now (`runTook`).
            const lastResultAt = gone ? await ledger.lastResultAt(run.id) : undefined;
            // A run not finished has no counts of its own yet: those of its results so far,
            // as the dashboard's runs list shows them.
            const counts =
              run.status === 'running' ? totalsOf(await ledger.resultCounts(run.id)) : run.counts;
            return {
              ...run,
              counts,
              ...(gone ? { processGone: true as const } : {}),
              ...(lastResultAt ? { lastResultAt } : {}),
              ...(later ? { supersededBy: later.id } : {}),
            };
          }),
        );
        const text =
          runs.length === 0 && Object.keys(filter).length > 0
            ? 'No run matches these filters.'
            : formatRuns(runs);
        process.stdout.write(
          options.json ? `${JSON.stringify(runs.map(withConferenceHost))}\n` : `${text}\n`,
        );
      } finally {
        await ledger.close();
      }
    });
}

interface RunsCliOptions {
  limit: string;
  job?: string;
  status?: string;
  trigger?: string;
  since?: string;
  json?: boolean;
}

/** What starts a run (`runTrigger`): by hand, by its schedule, by `evsync retry`, by an audit's repair. */
const TRIGGERS = ['manual', 'schedule', 'retry', 'audit'];

/** The command line's filter, checked: a wrong word is exit 2 with the words it takes. */
export function runFilterOf(
  options: Omit<RunsCliOptions, 'limit' | 'json'>,
  now = new Date(),
): RunListFilter {
  const filter: RunListFilter = {};
  if (options.job !== undefined) filter.jobName = options.job;
  if (options.status !== undefined) {
    const statuses = options.status.split(',').map((word) => word.trim());
    const wrong = statuses.filter((word) => !(RUN_STATUSES as readonly string[]).includes(word));
    if (wrong.length > 0)
      throw new ConfigError(`--status ${wrong.join(',')}: write one of ${RUN_STATUSES.join(', ')}.`, {
        code: CODE.EVSYNC_USAGE,
      });
    filter.statuses = statuses as RunStatus[];
  }
  if (options.trigger !== undefined) {
    if (!TRIGGERS.includes(options.trigger))
      throw new ConfigError(`--trigger ${options.trigger}: write one of ${TRIGGERS.join(', ')}.`, {
        code: CODE.EVSYNC_USAGE,
      });
    filter.trigger = options.trigger;
  }
  if (options.since !== undefined) filter.since = sinceOf(options.since, now);
  return filter;
}

function sinceOf(text: string, now: Date): Date {
  const age = ageMs(text);
  if (age !== undefined) return new Date(now.getTime() - age);
  const date = /^\d{4}-\d{2}-\d{2}/.test(text) ? new Date(text) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime()))
    throw new ConfigError(
      `--since ${text}: write a date (2026-11-26, 2026-11-26T02:00Z) or an age (30m, 12h, 7d, 2w).`,
      { code: CODE.EVSYNC_USAGE },
    );
  return date;
}

/**
 * A listed run; `processGone` when it is `running` but its process ended (`Ledger.processGone`),
 * `supersededBy` when it stopped and a later run of its job read its rows again since (`supersededBy`),
 * `lastResultAt` when cut off: where its time stops (`runTook`).
 */
export type ListedRun = RunRecord & { processGone?: true; supersededBy?: string; lastResultAt?: Date };

/** What finishes a stopped run: its resume, or, superseded, nothing to send (the resume closes it). */
function finishLine(run: ListedRun): string {
  return run.supersededBy === undefined
    ? `finish it with: evsync resume ${run.id}`
    : `superseded by run ${run.supersededBy}, which read its rows from the source again since: nothing left to send (evsync resume ${run.id} closes it)`;
}

/** A run as people are shown it: its conference by host (never a key). */
function withConferenceHost(run: ListedRun): Omit<ListedRun, 'conference'> & { conference: string | null } {
  return { ...run, conference: runConferenceHost(run) };
}

/** How long the run took; a resumed one, since its resume; a cut-off one, until its last result. */
function tookText(run: ListedRun): string {
  const took = runTook(run, run.processGone ? (run.lastResultAt ?? run.startedAt) : undefined);
  return took === undefined ? '' : `${took.seconds.toFixed(1)}s${tookNote(took)}`;
}

export function formatRuns(runs: readonly ListedRun[]): string {
  if (runs.length === 0) return 'No runs yet. Start one with `evsync run JOB.yaml` (or try `evsync demo`).';
  const header = ['run', 'job', 'conference', 'trigger', 'mode', 'status', 'started', 'took', 'results'];
  const rows = runs.map((run) => [
    run.id,
    // A repair sent by `evsync audit --repair` (docs/audit.md) is told apart from a plain run.
    run.options.trigger === 'audit' ? `${run.jobName} (audit repair)` : run.jobName,
    runConferenceHost(run) ?? '-',
    runTrigger(run),
    // `--full` runs sent every row: said beside the mode (docs/sync-engine.md, "Full runs").
    run.options.full === true ? `${run.mode}, full` : run.mode,
    run.processGone
      ? 'cut off'
      : waitsForWorker(run)
        ? 'waiting for a worker'
        : [run.status, prunedMarker(run)].filter(Boolean).join(', '),
    run.startedAt.toISOString().replace('T', ' ').slice(0, 19),
    tookText(run),
    Object.entries(run.counts)
      .filter(([, n]) => (n ?? 0) > 0)
      .map(([action, n]) => `${action} ${n}`)
      .join(', ') +
      // Rows lost for want of data, skipped or sent short of some events: the run exited 1 for those.
      (run.lost ? `; ${run.lost} lost` : ''),
  ]);
  const table = textTable(header, rows);
  const beforeStart = runs.filter((run) => run.status === 'failed' && typeof run.options.error === 'string');
  if (beforeStart.length > 0)
    table.push(
      '',
      'failed before it started (a scheduled tick whose job file or settings could not be used):',
      ...beforeStart.map((run) => `  ${run.id}: ${String(run.options.error)}`),
    );
  // Why each aborted run stopped, as it kept it (`options.aborted`), and how to finish it.
  const aborted = runs.filter((run) => run.status === 'aborted' && !run.processGone);
  if (aborted.length > 0)
    table.push(
      '',
      'aborted: stopped before its end; a resume sends the rest once the cause is fixed.',
      ...aborted.flatMap((run) => [
        `  ${run.id}: ${typeof run.options.aborted === 'string' ? run.options.aborted : '(no reason kept)'}`,
        // What the run kept to do next (`nextStep`), else its resume.
        typeof run.options.nextStep === 'string' && run.supersededBy === undefined
          ? `    ${run.options.nextStep}`
          : `    ${finishLine(run)}`,
      ]),
    );
  const cutOff = runs.filter((run) => run.processGone);
  if (cutOff.length > 0)
    table.push(
      '',
      'cut off: its process ended before the run did (killed, or its machine stopped); only a resume finishes it.',
      ...cutOff.map((run) => `  ${finishLine(run)}`),
    );
  if (runs.some((run) => run.pruned !== undefined))
    table.push(
      '',
      'pruned: `evsync prune` removed the run’s per-row results and planned intents (its retention); its counts are kept.',
    );
  if (runs.some((run) => run.conference === null))
    table.push(
      '',
      'conference -: recorded before runs named their conference (docs/ledger.md, "Conferences").',
    );
  if (runs.some(waitsForWorker))
    table.push(
      '',
      'waiting for a worker: handed over by `evsync run --detach`; an `evsync worker` (same REDIS_URL and DATABASE_URL) sends it.',
    );
  return table.join('\n');
}
