import type { DriftEntry, AuditSummary } from './drift.js';
import { AUDIT_KIND_ORDER } from './audit-job.js';

const ALL_COLUMNS = [
  'in_sync',
  'missing',
  'changed',
  'another_person',
  'extra',
  'erased',
  'not_synced',
  'not_auditable',
] as const;

/** The per-kind table and the first examples of each kind and type, for a person. */
export function formatAudit(summary: AuditSummary, entries: readonly DriftEntry[], examples = 5): string {
  // `erased` and `another person` only when found: they are rare, and the table stays narrow.
  const COLUMNS = ALL_COLUMNS.filter(
    (column) =>
      (column !== 'erased' && column !== 'another_person') ||
      Object.values(summary).some((audit) => audit[column] > 0),
  );
  const rows = AUDIT_KIND_ORDER.filter((kind) => summary[kind] !== undefined).map((kind) => [
    kind,
    ...COLUMNS.map((column) => String(summary[kind]![column])),
  ]);
  const header = ['kind', ...COLUMNS.map((column) => column.replace('_', ' '))];
  const widths = header.map((title, at) => Math.max(title.length, ...rows.map((row) => row[at]!.length)));
  const line = (cells: readonly string[]): string =>
    cells.map((cell, at) => (at === 0 ? cell.padEnd(widths[at]!) : cell.padStart(widths[at]!))).join('  ');
  const out = [line(header), ...rows.map(line)];
  const notAuditable = AUDIT_KIND_ORDER.filter((kind) => (summary[kind]?.not_auditable ?? 0) > 0);
  if (notAuditable.length > 0) {
    out.push(
      '',
      `Not auditable: ${notAuditable.join(', ')} (the API gives no read for them, so they are not compared).`,
    );
  }
  if (entries.length === 0) return out.join('\n');
  out.push('', 'Drift:');
  const shown = new Map<string, number>();
  for (const entry of entries) {
    const group = `${entry.kind}/${entry.type}`;
    const count = shown.get(group) ?? 0;
    shown.set(group, count + 1);
    if (count < examples) out.push(`  ${entry.kind} ${entry.key} ${entry.type}: ${entry.detail}`);
    else if (count === examples)
      out.push(`  … more ${entry.kind} ${entry.type} entries (--report FILE has them all)`);
  }
  return out.join('\n');
}
