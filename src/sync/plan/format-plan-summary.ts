import { textTable } from '../../report/text-table.js';
import { INTENT_KINDS } from '../../model/intent.js';
import { formatMergeReport } from '../collect/merge-people.js';
import { FULL_RUN_LINE, OPTIONAL_COLUMNS, PLAN_COLUMNS, type PlanSummary } from './plan-summary.js';
import { skippedLine } from './skipped-line.js';
import { warningLines } from './warning-lines.js';

/** The plan as a text table with examples, for a terminal. */
export function formatPlanSummary(summary: PlanSummary): string {
  const kinds = INTENT_KINDS.filter((kind) => summary.counts[kind]);
  const columns = PLAN_COLUMNS.filter(
    (c) => !OPTIONAL_COLUMNS.has(c) || kinds.some((kind) => summary.counts[kind]?.[c]),
  );
  const header = ['kind', ...columns];
  const rows = kinds.map((kind) => [kind, ...columns.map((c) => String(summary.counts[kind]?.[c] ?? 0))]);
  const out = [...(summary.full ? [FULL_RUN_LINE, ''] : []), ...textTable(header, rows)];
  if (kinds.length === 0) out.push('(nothing to do: the sources yielded no rows)');
  const calls = kinds.reduce(
    (sum, kind) =>
      sum +
      (['create', 'update', 'delete'] as const).reduce((s, c) => s + (summary.counts[kind]?.[c] ?? 0), 0),
    0,
  );
  out.push('', `${summary.total} intents, ${calls} to send; planned in ${summary.planMs.toFixed(0)} ms.`);
  const skipped = skippedLine(summary.skipped);
  if (skipped) out.push(skipped);
  out.push(...warningLines(summary.warnings));
  if (summary.losses.length > 0) out.push('', ...summary.losses.map((line) => `! ${line}`));
  if (summary.identity) out.push('', 'Who is who (docs/sync-engine.md, "Who is who"):', ...summary.identity);
  const merged = formatMergeReport(summary.merged);
  if (merged.length > 0) out.push('', ...merged);
  for (const notice of summary.notices) out.push('', notice);
  const interesting = summary.examples.filter((e) => e.column !== 'unchanged');
  if (interesting.length > 0) {
    out.push('', 'First examples:');
    for (const e of interesting) {
      out.push(
        `  ${e.column.padEnd(9)} ${e.kind} ${e.key}${e.where ? `  (${e.where})` : ''}${e.note ? `\n            ${e.note}` : ''}`,
      );
    }
  }
  return out.join('\n');
}
