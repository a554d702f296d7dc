import { describeRetention, type Retention, retentionOf, retentionSchema } from '../../config/retention.js';
import { CODE } from '../../errors/codes.js';
import { EvsyncError } from '../../errors/evsync-error.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { PruneRunInfo, PruneTally } from '../../ledger/ledger-pruning.js';
import type { Logger } from '../../log/logger.js';
import { type HeldRun, selectPrunable } from './select-prunable.js';

export interface PruneOptions {
  /** The command line's retention: for every job, instead of each job's own. */
  retention?: Retention;
  /** The environment's (`retentionFromEnv`): for jobs whose file sets none. */
  defaultRetention?: Retention;
  /** Only this job's runs. */
  jobName?: string;
  /** Say what would go; remove nothing. */
  dryRun?: boolean;
  /** @defaultValue now */
  now?: Date;
  /** Rows per delete statement. @defaultValue 2000 */
  batchSize?: number;
  logger?: Logger;
  /** Told of each run as it is pruned (or measured, on a dry run). */
  onRun?: (run: PrunedRun) => void;
}

/** One run pruned (or that would be). */
export interface PrunedRun {
  runId: string;
  jobName: string;
  finishedAt: Date | null;
  /** The retention that selected it, in words; or why a cut-off prune is finished. */
  rule: string;
  tally: PruneTally;
}

export interface PruneReport {
  dryRun: boolean;
  runs: PrunedRun[];
  /** Runs their retention selected that stay, and why. */
  held: Array<{ runId: string; jobName: string; reason: string }>;
  /** Every job with runs looked at. */
  jobs: string[];
  /** Jobs with runs and no retention from any side: nothing of theirs is pruned. */
  withoutRetention: string[];
  /** Rows removed per table over all runs, and the bytes of row data. */
  totals: { runs: number; tables: Record<string, number>; bytes: number };
}

const FINISHING = 'finishing a prune that was cut off';

/**
 * Removes the per-row data of the runs each job's retention lets go (docs/ledger.md,
 * "Retention"): the command line's when given, else the job file's (as its newest run
 * recorded it), else the environment's. A run is pruned holding its claim, so no resume or
 * retry reads it meanwhile; a run another process works on is left for the next prune.
 */
export async function pruneRuns(ledger: Ledger, options: PruneOptions = {}): Promise<PruneReport> {
  const pruning = ledger.pruning();
  const now = options.now ?? new Date();
  const report: PruneReport = {
    dryRun: options.dryRun === true,
    runs: [],
    held: [],
    jobs: [],
    withoutRetention: [],
    totals: { runs: 0, tables: {}, bytes: 0 },
  };
  const all = await pruning.runs(options.jobName === undefined ? {} : { jobName: options.jobName });
  for (const [jobName, groups] of byJobAndConference(all)) {
    const retention = options.retention ?? jobRetention(groups.flat()) ?? options.defaultRetention;
    report.jobs.push(jobName);
    for (const runs of groups) {
      const { prune, held } = await selectPrunable(runs, retention ?? {}, now, (run) =>
        hasPending(ledger, run.id),
      );
      if (retention === undefined) {
        // No rule selects anything; a prune that was cut off is still finished.
        if (!report.withoutRetention.includes(jobName)) report.withoutRetention.push(jobName);
      }
      report.held.push(...held.map((one) => heldEntry(one)));
      for (const run of prune) {
        const rule = run.pruning === 'started' ? FINISHING : describeRetention(retention ?? {});
        const done = report.dryRun
          ? await measured(ledger, run, rule)
          : await prunedUnderClaim(ledger, run, rule, options);
        if ('reason' in done) {
          report.held.push({ runId: run.id, jobName, reason: done.reason });
          continue;
        }
        report.runs.push(done);
        add(report.totals, done.tally);
        options.onRun?.(done);
      }
    }
  }
  return report;
}

/** The retention selects nothing at all: no flag, no job file's, no environment's. */
export function noRetentionError(): EvsyncError {
  return new EvsyncError(
    'Nothing says what to prune: give --older-than (e.g. 90d) and/or --keep-runs (e.g. 30), ' +
      'set `retention: { older_than: 90d, keep_runs: 30 }` in the job file, ' +
      'or EVSYNC_RETENTION_OLDER_THAN / EVSYNC_RETENTION_KEEP_RUNS.',
    { code: CODE.EVSYNC_USAGE },
  );
}

async function measured(ledger: Ledger, run: PruneRunInfo, rule: string): Promise<PrunedRun> {
  return { ...entry(run, rule), tally: await ledger.pruning().measure(run.id) };
}

async function prunedUnderClaim(
  ledger: Ledger,
  run: PruneRunInfo,
  rule: string,
  options: PruneOptions,
): Promise<PrunedRun | { reason: string }> {
  let release: () => Promise<void>;
  try {
    release = await ledger.claimRun(run.id);
  } catch (error) {
    if (error instanceof EvsyncError && error.code === CODE.EVSYNC_RUN_BUSY)
      return { reason: 'another evsync process works on it (a resume or a retry): the next prune takes it' };
    throw error;
  }
  try {
    // Read again once claimed: a resume may have started on it since it was listed.
    const now = await ledger.getRun(run.id);
    if (now === undefined) return { reason: 'no longer in the ledger' };
    if (
      now.pruned === undefined &&
      (!['completed', 'skipped'].includes(now.status) || (await hasPending(ledger, run.id)))
    )
      return { reason: `it is ${now.status} again: a resume took it since the prune began` };
    const tally = await ledger.pruning().pruneRun(run.id, {
      rule,
      countsByKind: now.pruned?.countsByKind ?? (await ledger.resultCounts(run.id)),
      ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
    });
    options.logger?.info({ runId: run.id, removed: tally.tables, bytes: tally.bytes }, 'run pruned');
    return { ...entry(run, rule), tally };
  } finally {
    await release();
  }
}

function entry(run: PruneRunInfo, rule: string): Omit<PrunedRun, 'tally'> {
  return { runId: run.id, jobName: run.jobName, finishedAt: run.finishedAt, rule };
}

function heldEntry({ run, reason }: HeldRun): PruneReport['held'][number] {
  return { runId: run.id, jobName: run.jobName, reason };
}

async function hasPending(ledger: Ledger, runId: string): Promise<boolean> {
  return (await ledger.pendingIntents(runId, { limit: 1 })).length > 0;
}

/** The retention the job's newest run recorded from its job file, if any. */
function jobRetention(runs: readonly PruneRunInfo[]): Retention | undefined {
  const newest = [...runs].sort((a, b) => b.seq - a.seq).find((run) => run.retention !== undefined);
  const parsed = retentionSchema.safeParse(newest?.retention);
  return parsed.success ? retentionOf(parsed.data) : undefined;
}

/** Runs by job, then by conference, each oldest first (as the ledger lists them). */
function byJobAndConference(runs: readonly PruneRunInfo[]): Map<string, PruneRunInfo[][]> {
  const jobs = new Map<string, Map<number, PruneRunInfo[]>>();
  for (const run of runs) {
    const conferences = jobs.get(run.jobName) ?? new Map<number, PruneRunInfo[]>();
    jobs.set(run.jobName, conferences);
    const group = conferences.get(run.conferenceId) ?? [];
    conferences.set(run.conferenceId, group);
    group.push(run);
  }
  return new Map([...jobs].map(([job, conferences]) => [job, [...conferences.values()]]));
}

function add(totals: PruneReport['totals'], tally: PruneTally): void {
  totals.runs++;
  totals.bytes += tally.bytes;
  for (const [table, { removed }] of Object.entries(tally.tables))
    totals.tables[table] = (totals.tables[table] ?? 0) + removed;
}
