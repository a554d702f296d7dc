import type { IntentKind } from '../../mapping/intent.js';
import { INTENT_KINDS } from '../../mapping/intent.js';
import { describeOrigin } from '../../sources/source-row.js';
import type { SyncPlan } from './sync-plan.js';

export const PLAN_COLUMNS = ['create', 'update', 'delete', 'unchanged', 'invalid', 'skipped'] as const;
export type PlanColumn = (typeof PLAN_COLUMNS)[number];

export interface PlanSummary {
  counts: Partial<Record<IntentKind, Partial<Record<PlanColumn, number>>>>;
  /** The first few intents of each (kind, column), for a person to check. */
  examples: Array<{ kind: IntentKind; column: PlanColumn; key: string; where: string; note?: string }>;
  total: number;
  planMs: number;
}

/** Counts per kind and planned action, with the first examples of each: what `evsync plan` prints. */
export function summarizePlan(plan: SyncPlan, examplesPerGroup = 3): PlanSummary {
  const summary: PlanSummary = { counts: {}, examples: [], total: 0, planMs: plan.planMs };
  const seenExamples = new Map<string, number>();
  const add = (kind: IntentKind, column: PlanColumn, key: string, where: string, note?: string): void => {
    const row = (summary.counts[kind] ??= {});
    row[column] = (row[column] ?? 0) + 1;
    summary.total += 1;
    const group = `${kind}/${column}`;
    const shown = seenExamples.get(group) ?? 0;
    if (shown < examplesPerGroup) {
      seenExamples.set(group, shown + 1);
      summary.examples.push({ kind, column, key, where, ...(note === undefined ? {} : { note }) });
    }
  };
  for (const item of plan.work) {
    const where = item.origin
      ? `${item.origin.source} ${describeOrigin(item.origin)}`
      : 'known to the ledger only';
    const column: PlanColumn = item.plannedAction === 'unchanged' ? 'unchanged' : item.plannedAction;
    add(item.kind, column, item.key, where);
  }
  for (const item of plan.unchanged) add(item.kind, 'unchanged', item.key, originText(item.origin));
  for (const row of plan.rowResults) {
    add(
      row.kind,
      row.action === 'failed' ? 'invalid' : 'skipped',
      row.key,
      originText(row.origin),
      row.message,
    );
  }
  return summary;
}

function originText(origin: { source: string; row: number; line?: number } | null): string {
  return origin ? `${origin.source} ${describeOrigin(origin)}` : '';
}

/** The plan as a text table with examples, for a terminal. */
export function formatPlanSummary(summary: PlanSummary): string {
  const kinds = INTENT_KINDS.filter((kind) => summary.counts[kind]);
  const header = ['kind', ...PLAN_COLUMNS];
  const rows = kinds.map((kind) => [
    kind,
    ...PLAN_COLUMNS.map((c) => String(summary.counts[kind]?.[c] ?? 0)),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const out = [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
  if (kinds.length === 0) out.push('(nothing to do: the sources yielded no rows)');
  const calls = kinds.reduce(
    (sum, kind) =>
      sum +
      (['create', 'update', 'delete'] as const).reduce((s, c) => s + (summary.counts[kind]?.[c] ?? 0), 0),
    0,
  );
  out.push('', `${summary.total} intents, ${calls} to send; planned in ${summary.planMs.toFixed(0)} ms.`);
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
