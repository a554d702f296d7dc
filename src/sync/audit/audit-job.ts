import { Erasures } from '../collect/erasures.js';
import type { IntentKind } from '../../model/intent.js';
import type { Logger } from '../../log/logger.js';
import type { LoadedJob } from '../job-file.js';
import { auditEvents } from './audit-events.js';
import { auditUsers } from './audit-users.js';
import type { AuditLedger, AuditPlatform, AuditSummary, DriftSink } from './drift.js';
import { emptyKindAudit } from './drift.js';
import { indexSources, NOT_AUDITABLE } from './source-index.js';

export interface AuditDeps {
  /** The ledger seen from the platform's conference. */
  ledger: AuditLedger;
  platform: AuditPlatform;
  logger?: Logger;
  /** Each drift entry as it is found. */
  sink: DriftSink;
}

/**
 * Reads the job's sources as a run would, reads the platform back through its list
 * endpoints, and says per kind what is in sync, missing, changed or extra
 * (docs/audit.md). Only GET calls: nothing is written, not even to the ledger.
 */
const MAX_PAGES_AHEAD = 16;

export async function auditJob(deps: AuditDeps, job: LoadedJob): Promise<AuditSummary> {
  // A person erased here is not in the sources as the audit reads them (docs/privacy.md).
  const erasures = await Erasures.load(deps.ledger, deps.platform.vendor);
  const index = await indexSources(job, {
    vendor: deps.platform.vendor,
    erasures,
    ...(deps.logger ? { logger: deps.logger } : {}),
  });
  const summary: AuditSummary = {};
  const hasLinks = index.linkCount > 0;
  // A kind the job does not yield is not read: its objects are no business of this job.
  let seen = new Map<string, number>();
  // Pages are asked for as many at once as the job lets writes go (its concurrency), so
  // the read-back keeps to its rate limit whatever a page's latency (docs/audit.md,
  // "Memory and calls"); the client's limiter still paces every call. At most 16: past the
  // end each page asked ahead is an empty call, and 16 cover 320 ms a page at 50/s.
  const ahead = Math.min(job.rate.concurrency, MAX_PAGES_AHEAD);
  if (index.users.size > 0) {
    const users = await auditUsers({ ...deps, erasures }, index, ahead);
    summary.user = users.audit;
    seen = users.seen;
  }
  if (index.events.size > 0 || hasLinks) {
    const { events, speakers } = await auditEvents(deps, index, seen, ahead);
    if (index.events.size > 0) summary.event = events;
    if (hasLinks) summary.speaker = speakers;
  }
  for (const [kind, count] of index.notAuditable) {
    const audit = (summary[kind] ??= emptyKindAudit());
    audit.not_auditable += count;
  }
  return summary;
}

/** True when the platform lacks or contradicts something the source says: exit 1. */
export function hasDrift(summary: AuditSummary): boolean {
  return Object.values(summary).some(
    (audit) => audit.missing + audit.changed + audit.another_person + audit.erased > 0,
  );
}

/** The kinds in the order of a run's phases, for tables. */
export const AUDIT_KIND_ORDER: readonly IntentKind[] = ['user', 'event', 'speaker', ...NOT_AUDITABLE];
