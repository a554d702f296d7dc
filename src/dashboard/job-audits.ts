import { isRepairable } from '../sync/audit/drift.js';
import { randomBytes } from 'node:crypto';
import { CODE } from '../errors/codes.js';
import { EvsyncError, isEvsyncError } from '../errors/evsync-error.js';
import { unknownRunError } from '../ledger/ledger-error.js';
import type { Ledger } from '../ledger/ledger.js';
import type { Logger } from '../log/logger.js';
import { hasDrift } from '../sync/audit/audit-job.js';
import type { AuditSummary, DriftEntry } from '../sync/audit/drift.js';
import { loadJobFile, type LoadedJob } from '../sync/job-file.js';
import { openAuditEngine } from '../sync/runs/open-audit-engine.js';
import { jobFileOf } from '../sync/runs/restore-params.js';
import type { ActionStarted, RunActions } from './run-actions.js';

/** Drift entries an audit's page shows; the rest are counted (`evsync audit --report` has them). */
export const SHOWN_DRIFT = 500;
/** Audits kept in memory; the oldest finished one goes first. */
const KEPT_AUDITS = 20;

/** An audit as its page and its JSON show it (docs/dashboard.md, "Audit"). */
export interface DashboardAudit {
  id: string;
  /** The run whose job was audited. */
  runId: string;
  jobName: string;
  file: string;
  status: 'running' | 'finished' | 'failed';
  startedAt: Date;
  finishedAt: Date | null;
  summary: AuditSummary | null;
  /** The first `SHOWN_DRIFT` entries, in the order the audit found them. */
  drift: DriftEntry[];
  /** Every entry found, shown or not. */
  driftCount: number;
  /** Something missing or changed: a repair has something to send. */
  repairable: boolean;
  error: { code: string | null; message: string } | null;
  /** The run that repairs this audit's drift, once started. */
  repairRunId: string | null;
}

interface Kept {
  audit: DashboardAudit;
  job: LoadedJob;
  /** Every missing and changed entry, only what `repairDrift` reads: it must see them all. */
  toRepair: DriftEntry[];
  repairing?: Promise<ActionStarted>;
}

export interface JobAuditsOptions {
  ledger: Ledger;
  logger: Logger;
  /** Runs the repairs, and stops and awaits the audits when the dashboard stops. */
  actions: RunActions;
}

/**
 * The dashboard's audits (docs/audit.md): `evsync audit` of a run's job, in the background,
 * kept in this process only (a restart forgets them; an audit writes nothing anywhere, so
 * there is nothing else to keep), and its repair as a run.
 */
export class JobAudits {
  private readonly audits = new Map<string, Kept>();

  constructor(private readonly options: JobAuditsOptions) {}

  /**
   * Starts an audit of the job `runId` was run from and answers its id at once; an audit of
   * that job file still going is answered instead of a second one.
   */
  async start(runId: string): Promise<{ auditId: string }> {
    const { ledger, logger, actions } = this.options;
    const run = await ledger.getRun(runId);
    if (!run) throw unknownRunError(runId);
    const file = await jobFileOf(ledger, run);
    if (file === undefined) {
      throw new EvsyncError(
        `Run ${runId} does not name the job file it was run from, so the dashboard cannot audit its job: run \`evsync audit JOB_FILE\`.`,
        { code: CODE.EVSYNC_RUN_NO_JOB_FILE },
      );
    }
    const job = loadJobFile(file);
    for (const kept of this.audits.values()) {
      if (kept.audit.file === file && kept.audit.status === 'running') return { auditId: kept.audit.id };
    }
    const audit: DashboardAudit = {
      id: randomBytes(6).toString('hex'),
      runId: run.id,
      jobName: job.name,
      file,
      status: 'running',
      startedAt: new Date(),
      finishedAt: null,
      summary: null,
      drift: [],
      driftCount: 0,
      repairable: false,
      error: null,
      repairRunId: null,
    };
    const kept: Kept = { audit, job, toRepair: [] };
    this.keep(kept);
    const auditLogger = logger.child({ job: job.name, audit: audit.id, auditOf: run.id });
    const sink = (entry: DriftEntry): void => {
      audit.driftCount += 1;
      if (audit.drift.length < SHOWN_DRIFT) audit.drift.push(entry);
      if (isRepairable(entry)) {
        kept.toRepair.push({
          kind: entry.kind,
          key: entry.key,
          type: entry.type,
          fields: [],
          platform_id: null,
          detail: '',
        });
      }
    };
    void actions
      .track(async (signal) => {
        const engine = await openAuditEngine(job, { logger: auditLogger, signal, ledger });
        try {
          return await engine.audit(sink);
        } finally {
          await engine.close();
        }
      })
      .then(
        (summary) => {
          audit.summary = summary;
          audit.repairable = hasDrift(summary);
          audit.status = 'finished';
        },
        (error: unknown) => {
          auditLogger.error({ err: error }, 'dashboard audit failed');
          audit.status = 'failed';
          // Only a coded error's message is shown: anything else may carry what a page must not.
          audit.error = isEvsyncError(error)
            ? { code: error.code, message: error.message }
            : { code: null, message: "The audit failed: see the dashboard's log." };
        },
      )
      .finally(() => {
        audit.finishedAt = new Date();
      });
    return { auditId: audit.id };
  }

  get(auditId: string): DashboardAudit | undefined {
    return this.audits.get(auditId)?.audit;
  }

  /**
   * Sends what puts the platform back as the source says, as a run (`RunActions.repair`);
   * asked again, answers the same run: an audit is repaired once, then audited again.
   */
  async repair(auditId: string): Promise<ActionStarted | undefined> {
    const kept = this.audits.get(auditId);
    if (!kept) return undefined;
    const refusal = repairRefusal(kept.audit);
    if (refusal !== undefined && kept.repairing === undefined) {
      throw new EvsyncError(refusal, { code: CODE.EVSYNC_USAGE });
    }
    kept.repairing ??= this.options.actions.repair(kept.audit.runId, kept.job, kept.toRepair).then(
      (started) => {
        kept.audit.repairRunId = started.runId;
        return started;
      },
      (error: unknown) => {
        // Refused (the job busy): the audit can be repaired once the job is free.
        delete kept.repairing;
        throw error;
      },
    );
    return kept.repairing;
  }

  private keep(kept: Kept): void {
    this.audits.set(kept.audit.id, kept);
    if (this.audits.size <= KEPT_AUDITS) return;
    const oldest =
      [...this.audits.values()].find((other) => other.audit.status !== 'running') ??
      this.audits.values().next().value!;
    this.audits.delete(oldest.audit.id);
  }
}

/** Why an audit cannot be repaired (yet), or undefined. */
export function repairRefusal(audit: DashboardAudit): string | undefined {
  if (audit.status === 'running')
    return 'The audit is still reading the platform: repair it once it has finished.';
  if (audit.status === 'failed')
    return 'The audit failed: nothing was compared, so there is nothing to repair.';
  if (!audit.repairable)
    return 'Nothing is missing or changed: there is nothing to repair (extras are never deleted).';
  return undefined;
}
