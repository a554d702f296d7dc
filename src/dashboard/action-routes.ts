import type { Context, Hono } from 'hono';
import { CODE } from '../errors/codes.js';
import { ConfigError } from '../errors/evsync-error.js';
import type { Ledger } from '../ledger/ledger.js';
import type { IntentKind } from '../model/intent.js';
import type { RetryFilter } from '../sync/runs/retry-run.js';
import { type DashboardEnv, formField } from './dashboard-auth.js';
import { parseResultsQuery, requireRun } from './dashboard-data.js';
import { wantsJson } from './negotiate.js';
import type { ActionStarted, RunActions } from './run-actions.js';
import { confirmView } from './views/action-views.js';
import { type Html, runPath } from './views/page-layout.js';

type Env = DashboardEnv;

export interface ActionRoutesDeps {
  ledger: Ledger;
  actions: RunActions;
  /** Renders a page of the dashboard's layout. */
  show: (c: Context<Env>, title: string, body: Html) => Response | Promise<Response>;
}

/**
 * Retry, resume and run again: `GET` says what the action will do and asks (a form with the
 * session's CSRF token), `POST` does it through `RunActions` and answers 303 to the run's
 * page, or `{ runId }` as JSON (docs/dashboard.md, "The contract").
 */
export function registerActionRoutes(app: Hono<Env>, { ledger, actions, show }: ActionRoutesDeps): void {
  app.get('/runs/:id/retry', async (c) => {
    const runId = (await requireRun(ledger, c.req.param('id'))).id;
    const filter = retryFilter(c.req.query());
    // What retryRun will send: failed intents that were planned (a row the source or the
    // mapping refused never was, and only a fixed source sends it).
    const [planned, counts, lostCheckIns] = await Promise.all([
      ledger.plannedByResult(runId, {
        actions: ['failed'],
        ...(filter.kinds ? { kinds: filter.kinds } : {}),
        ...(filter.keys ? { keys: filter.keys } : {}),
      }),
      ledger.resultCounts(runId),
      ledger.resultCounts(runId, { errorCodes: [CODE.EVSYNC_CHECK_IN_OUTCOME_UNKNOWN] }),
    ]);
    const lost =
      !filter.kinds || filter.kinds.includes('check_in') ? (lostCheckIns.check_in?.failed ?? 0) : 0;
    const kinds = filter.kinds ?? (Object.keys(counts) as IntentKind[]);
    const unplanned = filter.keys
      ? 0
      : kinds.reduce((sum, kind) => sum + (counts[kind]?.failed ?? 0), 0) - planned.length;
    const scope = `${filter.kinds ? ` of kind ${filter.kinds.join(', ')}` : ''}${filter.keys ? ` with client_id ${filter.keys.join(', ')}` : ''}`;
    return show(
      c,
      'Retry',
      confirmView({
        runId,
        action: 'retry',
        title: 'Retry failed rows',
        what:
          `Sends again the ${planned.length} failed intent(s)${scope} of run ${runId}, with the rows skipped because ` +
          'they failed, as a new run linked to this one.' +
          (unplanned > 0
            ? ` ${unplanned} row(s) failed in the source or the mapping before anything was sent: they are not retried; fix them in the source and run the job again.`
            : '') +
          (lost > 0
            ? ` ${lost} of them are check-ins whose answer was lost: the platform may have them, so they are not simply posted again. ` +
              "The retry looks up the key owner's own (GET /check_in/my): found, it records them; missing, it posts them. " +
              "Those in another user's name cannot be looked up: they are held back, and the new run lists them. " +
              `After checking the platform, post the missing ones with \`evsync retry ${runId} --kind check_in --resend-unknown\`.`
            : ''),
        fields: { kind: filter.kinds?.join(','), client_id: filter.keys?.[0], status: 'failed' },
        session: c.get('session'),
        refusal: planned.length === 0 ? `Run ${runId} has no failed intents${scope} to retry.` : undefined,
      }),
    );
  });
  app.get('/runs/:id/resume', async (c) => {
    const run = await requireRun(ledger, c.req.param('id'));
    return show(
      c,
      'Resume',
      confirmView({
        runId: run.id,
        action: 'resume',
        title: 'Resume this run',
        what:
          `Finishes run ${run.id} (${run.status}): sends every planned intent that has no result yet, and again those that ` +
          'failed only because the platform was down. Nothing is sent twice. The run goes on under its own id.',
        session: c.get('session'),
        refusal:
          run.status === 'completed' || run.status === 'skipped'
            ? `The run is ${run.status}: nothing to resume.`
            : undefined,
      }),
    );
  });
  app.get('/runs/:id/rerun', async (c) => {
    const run = await requireRun(ledger, c.req.param('id'));
    const file = typeof run.options.file === 'string' ? run.options.file : undefined;
    return show(
      c,
      'Run again',
      confirmView({
        runId: run.id,
        action: 'rerun',
        title: 'Run the job again',
        what: `Runs job ${run.jobName} again from its source${file ? ` (${file})` : ''}: reads it, plans against the ledger and sends what changed or failed, as a new run.`,
        session: c.get('session'),
        refusal:
          file === undefined && typeof run.options.retryOf !== 'string'
            ? 'This run does not name its job file, so the dashboard cannot run it again: run it with `evsync run JOB_FILE`.'
            : undefined,
      }),
    );
  });

  const answer = (c: Context<Env>, started: ActionStarted) =>
    wantsJson(c) ? c.json(started) : c.redirect(runPath(started.runId), 303);
  app.post('/runs/:id/retry', async (c) => {
    const fields = {
      status: await formField(c, 'status'),
      kind: await formField(c, 'kind'),
      client_id: await formField(c, 'client_id'),
    };
    if (fields.status !== undefined && fields.status !== '' && fields.status !== 'failed') {
      throw new ConfigError(`status=${fields.status}: a retry sends failed rows again; use status=failed`, {
        code: CODE.EVSYNC_USAGE,
      });
    }
    return answer(c, await actions.retry(c.req.param('id'), retryFilter(fields)));
  });
  app.post('/runs/:id/resume', async (c) => answer(c, await actions.resume(c.req.param('id'))));
  app.post('/runs/:id/rerun', async (c) => answer(c, await actions.rerun(c.req.param('id'))));
}

/** `kind` as a comma list and one `client_id`, checked like the CLI's. */
function retryFilter(fields: { kind?: string | undefined; client_id?: string | undefined }): RetryFilter {
  const parsed = parseResultsQuery({ kind: fields.kind });
  // One client_id, as it is: a key may hold a comma, or spaces a mapping without `trim` kept.
  const key = fields.client_id;
  return {
    ...(parsed.kinds ? { kinds: [...parsed.kinds] } : {}),
    ...(key ? { keys: [key] } : {}),
  };
}
