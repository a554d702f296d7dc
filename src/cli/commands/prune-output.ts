import { textTable } from '../../report/text-table.js';
import type { PruneReport } from '../../sync/prune/prune-runs.js';

/** What people call each per-run table. */
const TABLE_WORDS: Record<string, string> = {
  intent_results: 'results',
  run_intents: 'planned intents',
  run_unchanged: 'unchanged rows',
};

const word = (table: string): string => TABLE_WORDS[table] ?? table;
/** Results first: what people look for. */
const order = (table: string): number => {
  const known = Object.keys(TABLE_WORDS).indexOf(table);
  return known === -1 ? Number.MAX_SAFE_INTEGER : known;
};
const count = (n: number): string => n.toLocaleString('en-US');

/** `evsync prune`'s report for people: each run, the totals, what stays and why. */
export function formatPruneReport(report: PruneReport): string {
  const lines: string[] = [];
  const verb = report.dryRun ? 'Would prune' : 'Pruned';
  if (report.runs.length === 0) {
    lines.push(report.dryRun ? 'Nothing would be pruned.' : 'Nothing to prune.');
  } else {
    const tables = [...new Set(report.runs.flatMap((run) => Object.keys(run.tally.tables)))].sort(
      (a, b) => order(a) - order(b),
    );
    const header = ['run', 'job', 'finished', ...tables.map(word), 'results kept', 'rule'];
    const rows = report.runs.map((run) => [
      run.runId,
      run.jobName,
      run.finishedAt?.toISOString().slice(0, 16).replace('T', ' ') ?? '',
      ...tables.map((table) => count(run.tally.tables[table]?.removed ?? 0)),
      count(run.tally.tables.intent_results?.kept ?? 0),
      run.rule,
    ]);
    lines.push(`${verb} ${count(report.runs.length)} run${report.runs.length === 1 ? '' : 's'}:`, '');
    lines.push(...textTable(header, rows), '');
    const removed = tables.map((t) => `${count(report.totals.tables[t] ?? 0)} ${word(t)}`).join(', ');
    lines.push(
      `${report.dryRun ? 'Would remove' : 'Removed'} ${removed}: about ${bytes(report.totals.bytes)} of row data` +
        (report.dryRun ? '.' : ' (the ledger reuses the space; its files shrink only after VACUUM FULL).'),
      'Kept: each run with its counts, the synced hashes, the id map, the results the synced state points at, and those of keys a run removed ("results kept").',
    );
  }
  if (report.held.length > 0) {
    lines.push('', 'Kept although old enough:');
    for (const held of report.held) lines.push(`  ${held.runId} (${held.jobName}): ${held.reason}`);
  }
  if (report.withoutRetention.length > 0)
    lines.push(
      '',
      `No retention for ${report.withoutRetention.join(', ')}: set \`retention:\` in the job file, ` +
        'EVSYNC_RETENTION_OLDER_THAN / EVSYNC_RETENTION_KEEP_RUNS, or give --older-than / --keep-runs.',
    );
  return `${lines.join('\n')}\n`;
}

/** The report as `--json` prints it. */
export function pruneReportJson(report: PruneReport): string {
  return `${JSON.stringify(report)}\n`;
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}
