import { textTable } from '../../report/text-table.js';
import type { Command } from 'commander';
import { openLedger } from '../../ledger/open-ledger.js';
import { runConferenceHost } from '../../model/conference.js';
import type { RunRecord } from '../../model/run-record.js';
import { waitsForWorker } from '../../distributed/distributed-executor.js';
import { prunedMarker } from '../../sync/prune/pruned-note.js';

export function registerRunsCommand(program: Command): void {
  program
    .command('runs')
    .description('List recent runs, newest first.')
    .option('--limit <n>', 'how many', '20')
    .option('--json', 'print JSON')
    .action(async (options: { limit: string; json?: boolean }) => {
      const ledger = await openLedger();
      try {
        const listed = await ledger.listRuns(Math.max(1, Number(options.limit) || 20));
        const runs: ListedRun[] = await Promise.all(
          listed.map(async (run) =>
            (await ledger.processGone(run)) ? { ...run, processGone: true as const } : run,
          ),
        );
        process.stdout.write(
          options.json ? `${JSON.stringify(runs.map(withConferenceHost))}\n` : `${formatRuns(runs)}\n`,
        );
      } finally {
        await ledger.close();
      }
    });
}

/** A listed run; `processGone` when it is `running` but its process ended (`Ledger.processGone`). */
export type ListedRun = RunRecord & { processGone?: true };

/** A run as people are shown it: its conference by host (never a key). */
function withConferenceHost(run: ListedRun): Omit<ListedRun, 'conference'> & { conference: string | null } {
  return { ...run, conference: runConferenceHost(run) };
}

export function formatRuns(runs: readonly ListedRun[]): string {
  if (runs.length === 0) return 'No runs yet. Start one with `evsync run JOB.yaml` (or try `evsync demo`).';
  const header = ['run', 'job', 'conference', 'mode', 'status', 'started', 'took', 'results'];
  const rows = runs.map((run) => [
    run.id,
    // A repair sent by `evsync audit --repair` (docs/audit.md) is told apart from a plain run.
    run.options.trigger === 'audit' ? `${run.jobName} (audit repair)` : run.jobName,
    runConferenceHost(run) ?? '-',
    // `--full` runs sent every row: said beside the mode (docs/sync-engine.md, "Full runs").
    run.options.full === true ? `${run.mode}, full` : run.mode,
    run.processGone
      ? 'cut off'
      : waitsForWorker(run)
        ? 'waiting for a worker'
        : [run.status, prunedMarker(run)].filter(Boolean).join(', '),
    run.startedAt.toISOString().replace('T', ' ').slice(0, 19),
    run.finishedAt ? `${((run.finishedAt.getTime() - run.startedAt.getTime()) / 1000).toFixed(1)}s` : '',
    Object.entries(run.counts)
      .filter(([, n]) => (n ?? 0) > 0)
      .map(([action, n]) => `${action} ${n}`)
      .join(', '),
  ]);
  const table = textTable(header, rows);
  const cutOff = runs.filter((run) => run.processGone);
  if (cutOff.length > 0)
    table.push(
      '',
      'cut off: its process ended before the run did (killed, or its machine stopped); only a resume finishes it.',
      ...cutOff.map((run) => `  finish it with: evsync resume ${run.id}`),
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
