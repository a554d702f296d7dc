import type { PlanSummary } from './plan-summary.js';

/**
 * `2 rows are sent without an optional field they got wrong (warnings: …):` and the first
 * messages; nothing when no row has a warning.
 */
export function warningLines(warnings: PlanSummary['warnings']): string[] {
  if (warnings === undefined || warnings.rows === 0) return [];
  const one = warnings.rows === 1;
  return [
    `${warnings.rows} row${one ? ' is' : 's are'} sent without an optional field ${one ? 'it' : 'they'} got wrong (warnings: the person lands, the field does not):`,
    ...warnings.examples.map((example) => `  ${example}`),
    ...(warnings.rows > warnings.examples.length
      ? [`  … and ${warnings.rows - warnings.examples.length} more (evsync validate lists them all)`]
      : []),
  ];
}
