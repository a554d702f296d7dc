import type { Context, Hono } from 'hono';
import type { Ledger } from '../ledger/ledger.js';
import { jobFileOf } from '../sync/runs/restore-params.js';
import type { DashboardEnv } from './dashboard-auth.js';
import { requireRun } from './dashboard-data.js';
import { type JobAudits, repairRefusal } from './job-audits.js';
import { wantsJson } from './negotiate.js';
import { confirmView, problemView } from './views/action-views.js';
import { auditPath, auditView } from './views/audit-view.js';
import { type Html, runPath } from './views/page-layout.js';

type Env = DashboardEnv;

export interface AuditRoutesDeps {
  ledger: Ledger;
  audits: JobAudits;
  show: (c: Context<Env>, title: string, body: Html, status?: 404) => Response | Promise<Response>;
}

/**
 * The audit of a run's job and its repair (docs/dashboard.md, "Audit"), asked first as the
 * other actions are: `GET` a page that says what it does with a CSRF form, `POST` starts it
 * in the background and answers 303 to the audit's page (or `{ auditId }`), whose repair
 * answers 303 to the repair's run (or `{ runId }`).
 */
export function registerAuditRoutes(app: Hono<Env>, { ledger, audits, show }: AuditRoutesDeps): void {
  app.get('/runs/:id/audit', async (c) => {
    const run = await requireRun(ledger, c.req.param('id'));
    const file = await jobFileOf(ledger, run);
    return show(
      c,
      'Audit',
      confirmView({
        runId: run.id,
        action: 'audit',
        title: 'Audit this job',
        what:
          `Reads job ${run.jobName}'s sources${file ? ` (${file})` : ''} as a run would and reads the platform back ` +
          '(its lists of users and events), then shows what is missing, changed or extra there. ' +
          'It only reads: nothing is sent to the platform or written to the ledger. A repair is asked for afterwards, on its page.',
        session: c.get('session'),
        refusal:
          file === undefined
            ? 'This run does not name its job file, so the dashboard cannot audit its job: run `evsync audit JOB_FILE`.'
            : undefined,
      }),
    );
  });
  app.post('/runs/:id/audit', async (c) => {
    const started = await audits.start(c.req.param('id'));
    return wantsJson(c) ? c.json(started) : c.redirect(auditPath(started.auditId), 303);
  });

  app.get('/audits/:id', (c) => {
    const audit = audits.get(c.req.param('id'));
    if (!audit) return unknownAudit(c, show);
    if (wantsJson(c)) return c.json({ audit });
    return show(c, `Audit of ${audit.jobName}`, auditView(audit));
  });
  app.get('/audits/:id/repair', (c) => {
    const audit = audits.get(c.req.param('id'));
    if (!audit) return unknownAudit(c, show);
    const kept = audit.repairRunId;
    return show(
      c,
      'Repair',
      confirmView({
        runId: audit.runId,
        action: 'repair',
        from: { path: auditPath(audit.id), label: `audit of ${audit.jobName}` },
        title: 'Repair',
        what:
          `Runs job ${audit.jobName} as a new run (trigger audit) after the ledger forgets each missing or changed key, ` +
          'so the run sends them again: a changed object is updated, a missing one created again (never twice). ' +
          'Extras are never deleted.',
        session: c.get('session'),
        refusal: kept ? `This audit is being repaired by run ${kept}.` : repairRefusal(audit),
      }),
    );
  });
  app.post('/audits/:id/repair', async (c) => {
    const started = await audits.repair(c.req.param('id'));
    if (!started) return unknownAudit(c, show);
    return wantsJson(c) ? c.json(started) : c.redirect(runPath(started.runId), 303);
  });
}

/** Audits live in the dashboard's process: one from before a restart is gone. */
function unknownAudit(c: Context<Env>, show: AuditRoutesDeps['show']): Response | Promise<Response> {
  const message = `No audit ${c.req.param('id')} in this dashboard: audits are kept in its process, the last 20 of them. Audit the job again from one of its runs.`;
  if (wantsJson(c) || c.req.method !== 'GET') return c.json({ error: { code: null, message } }, 404);
  return show(c, 'Not found', problemView('Not found', message), 404);
}
