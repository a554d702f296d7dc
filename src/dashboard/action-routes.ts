import type { Context, Hono } from 'hono';
import { html } from 'hono/html';
import { CODE } from '../errors/codes.js';
import { ConfigError, isEvsyncError } from '../errors/evsync-error.js';
import type { Ledger } from '../ledger/ledger.js';
import type { RunRecord } from '../model/run-record.js';
import { notFoundAdvice } from '../sync/runs/retry-not-found.js';
import { retryPreview } from '../sync/runs/retry-preview.js';
import { retriedAlready, retriedNote, type RetriedAlready } from '../sync/runs/retried-already.js';
import { nothingLeftAfterRetries, type RetryFilter } from '../sync/runs/retry-run.js';
import { unfinishedRun } from '../sync/runs/refuse-unfinished.js';
import { type DashboardEnv, formField } from './dashboard-auth.js';
import { requireRun } from './dashboard-data.js';
import { parseResultsQuery } from './dashboard-results.js';
import { wantsJson } from './negotiate.js';
import type { ActionStarted, RunActions } from './run-actions.js';
import { confirmView } from './views/action-views.js';
import { type Html, runPath } from './views/page-layout.js';

type Env = DashboardEnv;

export interface ActionRoutesDeps {
  ledger: Ledger;
  actions: RunActions;
  /** Renders a page of the dashboard's layout. */
  show: (c: Context<Env>, title: string, body: Html, status?: 409) => Response | Promise<Response>;
}

/**
 * Retry, resume and run again: `GET` says what the action will do and asks (a form with the
 * session's CSRF token), `POST` does it through `RunActions` and answers 303 to the run's
 * page, or `{ runId }` as JSON (docs/dashboard.md, "The contract").
 */
export function registerActionRoutes(app: Hono<Env>, { ledger, actions, show }: ActionRoutesDeps): void {
  app.get('/runs/:id/retry', async (c) => {
    const run = await requireRun(ledger, c.req.param('id'));
    const runId = run.id;
    const filter = retryFilter(c.req.query());
    // What retryRun will do, split as it splits the failed rows: planned intents are sent
    // again, rows that failed the source or the mapping are read again by client_id, and
    // those without one cannot be found: a run of the job sends them once fixed.
    const preview = await retryPreview(ledger, runId, filter);
    // Retried already: say by which run, and what another retry sends, as `evsync retry` does.
    const already = await retriedAlready(ledger, run, filter);
    const nothingLeft = await nothingLeftAfterRetries(ledger, runId, filter, already);
    const scope = `${filter.kinds ? ` of kind ${filter.kinds.join(', ')}` : ''}${filter.keys ? ` with client_id ${filter.keys.join(', ')}` : ''}`;
    const rerun = runAgainLink(run);
    // A run that stopped with intents never sent is finished first: the refusal `evsync retry` gives.
    const cutOff = run.status === 'running' && (await ledger.processGone(run));
    const unfinished = await unfinishedRun(ledger, run, cutOff);
    return show(
      c,
      'Retry',
      confirmView({
        runId,
        action: 'retry',
        title: 'Retry failed rows',
        what: nothingLeft
          ? retriedNote(runId, already)
          : (preview.planned > 0
              ? `Sends again the ${preview.planned} failed intent(s)${scope} of run ${runId}, with the rows skipped because ` +
                "they failed, as a new run linked to this one. Each failed row goes as the job's source has it now: " +
                'one changed there since is sent with the change, one no longer there is not sent.' +
                (already.synced > 0
                  ? ` Of them, the ${already.synced} an earlier retry synced are not sent again unless the source changed them since.`
                  : '')
              : `A new run linked to run ${runId}${scope}.`) +
            (preview.readAgain > 0
              ? ` Reads again from the job's source the ${preview.readAgain} row(s) that failed there or in the mapping, by their client_id: ` +
                'those fixed since are sent, those that still fail are listed with why.'
              : '') +
            (preview.notFound > 0
              ? ` ${await notFoundAdvice(ledger, run, preview.notFoundNamed, preview.notFound)}`
              : '') +
            (preview.lostCheckIns > 0
              ? ` ${preview.lostCheckIns} of them are check-ins whose answer was lost: the platform may have them, so they are not simply posted again. ` +
                "The retry looks up the key owner's own (GET /check_in/my): found, it records them; missing, it posts them. " +
                "Those in another user's name cannot be looked up: they are held back, and the new run lists them. " +
                `After checking the platform, post the missing ones with \`evsync retry ${runId} --kind check_in --resend-unknown\`.`
              : ''),
        before: retriedView(runId, already),
        fields: { kind: filter.kinds?.join(','), client_id: filter.keys?.[0], status: 'failed' },
        session: c.get('session'),
        refusal:
          unfinished !== undefined
            ? unfinished.message
            : preview.planned + preview.readAgain === 0
              ? `Run ${runId} has no failed rows${scope} that a retry can send.`
              : nothingLeft
                ? 'Nothing is left to retry: its retries synced every row that failed.'
                : undefined,
        alternative: unfinished?.resume
          ? { href: `${runPath(runId)}/resume`, label: 'Resume…' }
          : unfinished !== undefined || preview.notFound > 0 || preview.planned + preview.readAgain === 0
            ? rerun
            : undefined,
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
        refusal: canRunAgain(run)
          ? undefined
          : 'This run does not name its job file, so the dashboard cannot run it again: run it with `evsync run JOB_FILE`.',
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
    try {
      return answer(c, await actions.retry(c.req.param('id'), retryFilter(fields)));
    } catch (error) {
      // A page says why nothing went (rows still failing in the source, or not found
      // again) and offers the run of the job that sends them once fixed: no dead end.
      if (wantsJson(c) || !isEvsyncError(error) || error.code !== CODE.EVSYNC_NOTHING_TO_RETRY) throw error;
      const run = await requireRun(ledger, c.req.param('id'));
      return show(
        c,
        'Nothing to retry',
        confirmView({
          runId: run.id,
          action: 'rerun',
          title: 'Nothing to retry',
          what: error.message,
          refusal: 'Nothing was sent and no run was started.',
          alternative: runAgainLink(run),
          session: c.get('session'),
        }),
        409,
      );
    }
  });
  app.post('/runs/:id/resume', async (c) => answer(c, await actions.resume(c.req.param('id'))));
  app.post('/runs/:id/rerun', async (c) => answer(c, await actions.rerun(c.req.param('id'))));
}

/** The retries a run had, linked, and the line `evsync retry` prints about them (`retriedNote`). */
function retriedView(runId: string, already: RetriedAlready): Html | undefined {
  if (already.retries.length === 0) return undefined;
  return html`<p class="note" data-retried>
      Retried by ${already.retries.map((id) => html`<a href="${runPath(id)}">${id}</a> `)}
    </p>
    <p class="what" data-retried-note>${retriedNote(runId, already)}</p>`;
}

/** Whether the run names its job file, or is a retry of one that may (`jobFileOf` follows it). */
function canRunAgain(run: RunRecord): boolean {
  return typeof run.options.file === 'string' || typeof run.options.retryOf === 'string';
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

/** The way on when a retry cannot send a row: a run of the job, if the run names its file. */
function runAgainLink(run: RunRecord): { href: string; label: string } | undefined {
  return canRunAgain(run) ? { href: `${runPath(run.id)}/rerun`, label: 'Run the job again…' } : undefined;
}
