/**
 * What `validate`, `plan` and `run` say about the people merged across steps, and about the
 * rows refused because the steps disagree on who someone is (docs/sync-engine.md, "One
 * person, many sources" and "Who is who").
 */

/** One step's row of a person, as merged. */
export interface MergeMember {
  step: string;
  key: string;
  where: string;
}

/** A field two steps gave different non-empty values for, and which won. */
export interface MergeConflict {
  key: string;
  email: string;
  field: string;
  won: { step: string; value: string };
  lost: Array<{ step: string; value: string }>;
  /** `precedence` (the job's or the steps' order) or `membership rank`. */
  by: string;
  /**
   * The field is one object of the platform (`employee`, `addresses`…) taken whole from one
   * step; each `value` lists its filled parts: `company "Acme Corp", position "Editor"`.
   */
  whole?: boolean;
}

/** What `validate`, `plan` and `run` say about merged people (docs/sync-engine.md). */
export interface MergeReport {
  /** People described by rows of more than one step. */
  people: number;
  /** User rows those people had, all steps together. */
  rows: number;
  examples: Array<{ key: string; email: string; members: MergeMember[] }>;
  /** Fields, over all merged people, whose non-empty values disagreed. */
  conflicts: number;
  conflictExamples: MergeConflict[];
  /**
   * User rows not sent because the steps disagree on who someone is (docs/sync-engine.md,
   * "Who is who"): one client_id given to different people, one e-mail to people of
   * different names, or keys an earlier run merged into one platform user given to people of
   * different e-mails. Each row fails, naming the others.
   */
  refused: number;
  refusedExamples: string[];
}

/** The lines `validate`, `plan` and `run` print about merged people, none when nobody was. */
export function formatMergeReport(report: MergeReport | undefined): string[] {
  if (!report || (report.people === 0 && report.refused === 0)) return [];
  const lines: string[] = [];
  if (report.people > 0)
    lines.push(
      `Merged people: ${report.people} people described by ${report.rows} rows of several steps are ` +
        `${report.people} users (docs/sync-engine.md, "One person, many sources").`,
    );
  for (const example of report.examples) {
    lines.push(`  ${example.email} → user ${example.key}`);
    for (const member of example.members) lines.push(`      ${member.step}: ${member.key} (${member.where})`);
  }
  if (report.refused > 0) {
    lines.push(
      `Refused: ${report.refused} user rows of people the steps disagree on (one client_id for two people, one e-mail for two names, or one platform user for two e-mails) are not sent; the first:`,
    );
    for (const example of report.refusedExamples) lines.push(`  ${example}`);
  }
  if (report.conflicts > 0) {
    lines.push(`Conflicts: ${report.conflicts} fields had different values in different steps; the first:`);
    for (const c of report.conflictExamples) {
      const shown = (value: string): string => (c.whole ? `(${value})` : `"${value}"`);
      const lost = c.lost.map((l) => `${l.step} ${shown(l.value)}`).join(', ');
      const by = c.whole ? `${c.by}; taken whole from one step` : c.by;
      lines.push(`  ${c.email} ${c.field}: ${c.won.step} ${shown(c.won.value)} wins over ${lost} (${by})`);
    }
  }
  return lines;
}
