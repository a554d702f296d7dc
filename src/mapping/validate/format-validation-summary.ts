import { CODE } from '../../errors/codes.js';
import type { ProblemGroup, ValidationSummary } from './validation-summary.js';

/**
 * The summary of one step of `evsync validate`, for a person. `warnings` (a source that
 * yielded no rows) come first among the lines marked `!`.
 */
export function formatValidationSummary(
  title: string,
  summary: ValidationSummary,
  warnings: readonly string[] = [],
): string {
  const lines = [title];
  const intents = [...summary.intents]
    .map(([kind, count]) => `${kind} ${count.toLocaleString('en')}`)
    .join(', ');
  const row = (label: string, count: number, extra = ''): string =>
    `  ${label.padEnd(12)}${count.toLocaleString('en').padStart(10)}${extra}`;
  lines.push(row('rows read', summary.rowsRead));
  lines.push(row('valid', summary.rowsValid + summary.rowsGrouped));
  lines.push(`  ${'intents'.padEnd(12)}${' '.repeat(10)}  ${intents || 'none'}`);
  lines.push(row('skipped', summary.rowsSkipped));
  lines.push(row('duplicates', summary.rowsDuplicate));
  lines.push(row('invalid', summary.rowsInvalid));
  if (summary.rowsWarned > 0)
    lines.push(row('warnings', summary.rowsWarned, '  (valid rows sent without a field)'));
  if (summary.groupsInvalid > 0) lines.push(row('invalid schedules', summary.groupsInvalid));
  const marked = [...warnings, ...summary.losses.lines()];
  if (marked.length > 0) lines.push('', ...marked.map((line) => `  ! ${line}`));
  section(lines, 'Invalid rows, by problem', summary.problems);
  section(lines, 'Fields left out, by problem (the rows are sent without them)', summary.warnings);
  section(lines, 'Duplicates', summary.duplicates);
  section(lines, 'Skipped rows, by reason', summary.skipped);
  return lines.join('\n');
}

function section(lines: string[], heading: string, groups: Map<string, ProblemGroup>): void {
  if (groups.size === 0) return;
  lines.push('', `${heading}:`);
  const sorted = [...groups.values()].sort((a, b) => b.count - a.count);
  for (const group of sorted) {
    const what =
      group.code === CODE.SKIPPED || group.field === ''
        ? group.field || group.code
        : `${group.code} in ${group.field}`;
    lines.push(`  ${what}: ${group.count.toLocaleString('en')} ${group.count === 1 ? 'row' : 'rows'}`);
    // A column the header lacks is the same problem on every row: said once, with the fix.
    const examples = group.code === CODE.MAPPING_COLUMN_MISSING ? group.examples.slice(0, 1) : group.examples;
    for (const example of examples) lines.push(`    ${example}`);
    if (group.count > examples.length)
      lines.push(
        `    … and ${group.count - examples.length} more${examples === group.examples ? '' : ', the same'}`,
      );
  }
}
