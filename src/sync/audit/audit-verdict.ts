import { rowCount } from '../../model/run-record.js';
import { AUDIT_KIND_ORDER, hasDrift } from './audit-job.js';
import type { AuditSummary } from './drift.js';

/**
 * An audit's verdict in one line, as `evsync audit` and the dashboard's audit page say it
 * (docs/audit.md, "Output and exit codes"). It never calls the platform as the source says
 * more than was compared: rows the platform gives no read for (`not auditable`: RSVPs,
 * schedules, contacts, check-ins, removals) are named, and a job of only those compared
 * nothing. Before, such a job was told "the platform is as the source says".
 */
export function auditVerdict(summary: AuditSummary): string {
  const kinds = AUDIT_KIND_ORDER.filter((kind) => summary[kind] !== undefined);
  const total = (count: (audit: NonNullable<AuditSummary[keyof AuditSummary]>) => number): number =>
    kinds.reduce((sum, kind) => sum + count(summary[kind]!), 0);
  // Source rows looked up on the platform, whatever was found.
  const compared = total((a) => a.in_sync + a.missing + a.changed + a.another_person + a.not_synced);
  const unaudited = total((a) => a.not_auditable);
  const extras = total((a) => a.extra);
  const unauditedKinds = kinds.filter((kind) => summary[kind]!.not_auditable > 0).join(', ');
  const notCompared = `${rowCount(unaudited)} could not be compared (${unauditedKinds}: not auditable)`;
  const extra = `${extras} extra on the platform, reported, never deleted`;
  if (hasDrift(summary))
    return `the platform differs from the source${unaudited > 0 ? `; ${notCompared}` : ''}.`;
  if (compared === 0) {
    const why =
      unaudited > 0
        ? `nothing could be compared: ${rowCount(unaudited)} ${unaudited === 1 ? 'is' : 'are'} of kinds the platform cannot be read back for (${unauditedKinds})`
        : 'nothing to compare: the sources gave no row';
    return `${why}${extras > 0 ? `; ${extra}` : ''}.`;
  }
  if (unaudited === 0) return extras > 0 ? `in sync (${extra}).` : 'the platform is as the source says.';
  const those =
    compared === 1
      ? 'the 1 row that could be compared is'
      : `the ${compared} rows that could be compared are`;
  return `${those} ${extras > 0 ? `in sync (${extra})` : 'as the source says'}; ${unaudited} could not be (${unauditedKinds}: not auditable).`;
}
