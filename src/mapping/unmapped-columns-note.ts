import type { HeaderReport } from './mapped-item.js';

/**
 * What becomes of the source columns no param reads, said once per step by `validate`, and
 * logged by `plan` and `run` (docs/mapping.md, "Columns no mapping reads"): told from what
 * the bound mapping does with them, never from the step's wish alone. A line per fact.
 */
export function unmappedColumnsNotes(
  header: Pick<HeaderReport, 'unused' | 'customData'> | undefined,
): string[] {
  const unused = header?.unused ?? [];
  if (unused.length === 0) return [];
  const custom = header?.customData;
  if (custom === undefined) {
    return [
      `no mapping reads the column${unused.length === 1 ? '' : 's'} ${names(unused)}: to keep them in each ` +
        "user's custom_data, set custom_data: { columns: all_unmapped } on the job step",
    ];
  }
  const notes: string[] = [];
  if (custom.kept.length > 0) {
    const merged =
      custom.mergedInto === undefined
        ? ''
        : `, merged into ${custom.mergedInto}, whose keys win over a column of the same name`;
    notes.push(
      `kept in each user's custom_data (custom_data: { columns: all_unmapped })${merged}: ${names(custom.kept)}`,
    );
  }
  const byReason = new Map<string, string[]>();
  for (const { column, reason } of custom.leftOut)
    byReason.set(reason, [...(byReason.get(reason) ?? []), column]);
  if (byReason.size > 0) {
    const parts = [...byReason].map(([reason, columns]) => `${names(columns)} (${reason})`);
    notes.push(
      `not kept in custom_data, although the step asks for all unmapped columns: ${parts.join('; ')}`,
    );
  }
  return notes;
}

function names(columns: readonly string[]): string {
  return columns.map((name) => JSON.stringify(name)).join(', ');
}
