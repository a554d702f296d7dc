import { Hono, type Context } from 'hono';
import { prunedNote } from '../sync/prune/pruned-note.js';
import { bodyLimit } from 'hono/body-limit';
import { except } from 'hono/combine';
import { stream } from 'hono/streaming';
import { CODE } from '../errors/codes.js';
import type { ErrorCode } from '../errors/codes.js';
import { isEvsyncError } from '../errors/evsync-error.js';
import type { Ledger } from '../ledger/ledger.js';
import type { Logger } from '../log/logger.js';
import { writeReport } from '../sync/report/write-report.js';
import { DashboardAuth, type DashboardEnv, formField, lockedOut, safeNext } from './dashboard-auth.js';
import { LoginThrottle, type LoginThrottleOptions, type LoginVerdict } from './login-throttle.js';
import { registerActionRoutes } from './action-routes.js';
import { registerAuditRoutes } from './audit-routes.js';
import { registerForgetRoutes } from './forget-routes.js';
import { isForgotten, PersonForget } from './person-forget.js';
import { JobAudits } from './job-audits.js';
import { loadRunList, parseRunListQuery } from './run-list.js';
import { FinishedRunFacts, loadRun, requireRun } from './dashboard-data.js';
import {
  failedFirst,
  loadResults,
  loadResultsFailedFirst,
  loadRow,
  parseResultsQuery,
  type ResultsPage,
  type ResultsQuery,
} from './dashboard-results.js';
import { dashboardAssets, PUBLIC_ASSETS } from './dashboard-assets.js';
import type { LiveRuns } from './live-progress.js';
import { wantsJson } from './negotiate.js';
import type { ScheduleInfo } from '../distributed/schedules.js';
import type { QueuePanel } from './queue-panel.js';
import type { RunActions } from './run-actions.js';
import { runEvents } from './run-events.js';
import { loginView, problemView } from './views/action-views.js';
import { page } from './views/page-layout.js';
import { queueView } from './views/queue-view.js';
import { resultsPageView, resultsSection } from './views/results-view.js';
import { rowView } from './views/row-view.js';
import { actionsSection, runView } from './views/run-view.js';
import { runsView } from './views/runs-view.js';
import { METRICS_CONTENT_TYPE, metricsText, readiness, type Readiness } from '../sync/runs/run-metrics.js';

export interface DashboardAppOptions {
  ledger: Ledger;
  /** The login token (EVSYNC_DASHBOARD_TOKEN, or one made at start). */
  token: string;
  logger: Logger;
  actions: RunActions;
  live: LiveRuns;
  /** Distributed mode's queue view and Bull Board; absent in inline mode. */
  queue?: QueuePanel | undefined;
  /** "Forget this person…" on a user row. @defaultValue a client from the run's platform variables */
  forget?: PersonForget;
  /** The audits of jobs. @defaultValue kept in this app, run and stopped through `actions` */
  audits?: JobAudits;
  /** Between two live events. @defaultValue 1000 */
  eventsIntervalMs?: number;
  /** How wrong tokens are slowed and locked out (`LoginThrottle`). */
  loginThrottle?: LoginThrottleOptions;
  /**
   * The address a request comes from, for the throttle. @defaultValue the socket's peer
   * (`clientAddress`); a proxy in front is one address for all its clients.
   */
  clientAddress?: (c: Context) => string;
  /** `/readyz` and `/metrics` (docs/metrics.md). @defaultValue `/readyz` asks the ledger; `/metrics` as `metricsText` */
  health?: {
    ready(): Promise<Readiness>;
    metrics(): Promise<string>;
  };
}

type Env = DashboardEnv;

/** HTTP statuses of the codes an action or a page can end with; anything else is a 500. */
const STATUS_OF: Partial<Record<ErrorCode, 400 | 404 | 409 | 503>> = {
  EVSYNC_QUEUE_UNREACHABLE: 503,
  EVSYNC_LEDGER_UNKNOWN_RUN: 404,
  EVSYNC_RUN_BUSY: 409,
  EVSYNC_JOB_BUSY: 409,
  EVSYNC_LEDGER_BUSY: 409,
  EVSYNC_NOTHING_TO_RETRY: 409,
  EVSYNC_RETRY_UNFINISHED_RUN: 409,
  EVSYNC_RUN_NO_JOB_FILE: 409,
  EVSYNC_ERASURE_IDENTITY: 409,
  EVSYNC_CONFERENCE_MISMATCH: 409,
  // The job file a rerun reads is gone or broken since the run.
  EVSYNC_FILE: 409,
  EVSYNC_INVALID_FILE: 409,
  EVSYNC_CONFIG: 400,
  EVSYNC_USAGE: 400,
};

/**
 * The dashboard (docs/dashboard.md): server-rendered pages over the ledger, the same
 * answers as JSON to `Accept: application/json`, and the run actions of the CLI. Its
 * `fetch` is all a test needs; `serveDashboard` puts it on a port.
 */
export function createDashboardApp(options: DashboardAppOptions): Hono<Env> {
  const { ledger, actions, live, queue } = options;
  const auth = new DashboardAuth(
    options.token,
    new LoginThrottle(options.logger, options.loginThrottle),
    options.clientAddress,
  );
  const app = new Hono<Env>();
  const distributed = queue !== undefined;
  const finished = new FinishedRunFacts();
  const show = (
    c: Context<Env>,
    title: string,
    body: Parameters<typeof page>[1],
    status?: 200 | 400 | 404 | 409 | 500 | 503,
  ) =>
    c.html(
      page({ title, session: c.get('session'), distributed, scripts: SCRIPTS, styles: STYLES }, body),
      status ?? 200,
    );

  app.use('*', async (c, next) => {
    await next();
    // Bull Board's pages and API too: its scripts and styles are served from here as well.
    c.header(
      'Content-Security-Policy',
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'",
    );
    c.header('X-Content-Type-Options', 'nosniff');
    // A login URL carries the token: never send it on as a referrer.
    c.header('Referrer-Policy', 'no-referrer');
    // The ledger's data stays out of shared caches and the browser's disk cache.
    if (!/^\/(assets|queues\/static)\//.test(c.req.path)) c.header('Cache-Control', 'no-store');
  });

  // Before anything reads a body (the login form, the CSRF field): `Content-Length` is
  // checked first, a body without one is counted as it is read.
  const limit = (maxSize: number) => bodyLimit({ maxSize, onError: (c) => tooLarge(c, maxSize) });
  app.use('*', except('/queues/api/*', limit(FORM_BODY_LIMIT)));
  app.use('/queues/api/*', limit(BOARD_BODY_LIMIT));

  app.onError((error, c) => {
    const code = isEvsyncError(error) ? error.code : undefined;
    const status = (code && STATUS_OF[code]) ?? 500;
    if (status === 500) options.logger.error({ err: error, path: c.req.path }, 'dashboard request failed');
    const message = code ? error.message : 'The dashboard failed to answer: see its log.';
    if (wantsJson(c) || c.req.method !== 'GET') {
      if (!wantsJson(c) && c.req.method === 'POST' && c.req.header('accept')?.includes('text/html')) {
        return show(c, 'Not done', problemView('Not done', message, code), status);
      }
      return c.json({ error: { code: code ?? null, message } }, status);
    }
    return show(c, 'Problem', problemView('Problem', message, code), status);
  });

  // Health for load balancers and compose: no login, and nothing but states.
  const health = options.health ?? {
    ready: () => readiness({ ledger: () => ledger.ledgerId() }),
    metrics: () => metricsText(ledger),
  };
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const verdict = await health.ready();
    return c.json(verdict, verdict.ready ? 200 : 503);
  });

  app.get('/login', async (c) => {
    const next = safeNext(c.req.query('next'), originOf(c));
    const token = c.req.query('token');
    // The URL printed at start logs the browser in at once, as notebook servers do.
    if (token === undefined || token === '') return c.html(page({ title: 'Log in' }, loginView(next)));
    return signedIn(c, await auth.signIn(c, 'url', token), next);
  });
  app.post('/login', async (c) => {
    const next = safeNext(await formField(c, 'next'), originOf(c));
    return signedIn(c, await auth.signIn(c, 'form', await formField(c, 'token')), next);
  });

  /** The answer to a login: in, or the form again with why not. */
  function signedIn(c: Context<Env>, verdict: LoginVerdict, next: string): Response | Promise<Response> {
    if (verdict.outcome === 'right') {
      auth.login(c);
      return c.redirect(next, 303);
    }
    if (verdict.outcome === 'locked') {
      if (wantsJson(c)) return lockedOut(c, verdict.retryAfterSeconds);
      c.header('Retry-After', String(verdict.retryAfterSeconds));
      return c.html(page({ title: 'Log in' }, loginView(next, verdict)), 429);
    }
    return c.html(page({ title: 'Log in' }, loginView(next, verdict)), 401);
  }

  // The login page's style sheet, before anyone is logged in; the rest waits for a login.
  app.route('/assets', dashboardAssets(PUBLIC_ASSETS));

  app.use('*', auth.middleware());

  app.post('/logout', (c) => {
    auth.logout(c);
    return c.redirect('/login', 303);
  });
  app.get('/', (c) => c.redirect('/runs', 303));

  // Behind the login: a scraper sends the token as `Authorization: Bearer`.
  app.get('/metrics', async (c) =>
    c.body(await health.metrics(), 200, { 'content-type': METRICS_CONTENT_TYPE }),
  );
  app.route('/assets', dashboardAssets());

  app.get('/runs', async (c) => {
    const filter = parseRunListQuery(c.req.query());
    const data = await loadRunList(ledger, filter, await registeredSchedules());
    if (wantsJson(c)) return c.json(data);
    return show(c, 'Runs', runsView(data, filter));
  });

  app.get('/runs/:id', async (c) => {
    const runId = c.req.param('id');
    const data = await loadRun(ledger, runId, finished);
    if (wantsJson(c)) return c.json(data);
    // A live run's page asks for its buttons again once the run ends.
    if (c.req.header('x-fragment') === 'actions') return c.html(actionsSection(data));
    const filter = resultsQuery(c);
    const results = await pageOfResults(runId, filter);
    return show(c, `Run ${runId}`, runView(data, filter, results));
  });

  app.get('/runs/:id/results', async (c) => {
    const runId = c.req.param('id');
    const format = c.req.query('format');
    if (format === 'csv' || format === 'json') return download(c, runId, format);
    const filter = resultsQuery(c);
    const parsed = parseResultsQuery(filter);
    const run = await requireRun(ledger, runId);
    // Scripts read `seq` order; a person's page lists the failed rows first.
    if (wantsJson(c)) return c.json({ runId, ...(await loadResults(ledger, runId, parsed)) });
    const results = await pageOfResults(runId, filter);
    const section = resultsSection(runId, filter, results, run.pruned ? prunedNote(run.pruned) : null);
    if (c.req.header('x-fragment') === 'results') return c.html(section);
    return show(c, `Results of ${runId}`, resultsPageView(runId, section));
  });

  app.get('/runs/:id/timeline', async (c) => {
    const run = await requireRun(ledger, c.req.param('id'));
    return c.json(await ledger.insights().timeline(run.id));
  });

  app.get('/runs/:id/results/:kind/:key{.+}', async (c) => {
    const { id, kind, key } = c.req.param();
    const run = await requireRun(ledger, id);
    const row = await loadRow(ledger, id, kind, key);
    if (!row) {
      const message = (await isForgotten(ledger, run, kind, key))
        ? `Run ${id} has no such row any more: its person was forgotten (see Erasures).`
        : `Run ${id} has no result for ${kind} "${key}".`;
      if (wantsJson(c)) return c.json({ error: { code: null, message } }, 404);
      return show(c, 'Not found', problemView('Not found', message), 404);
    }
    if (wantsJson(c)) return c.json(row);
    return show(c, `${kind} ${key}`, rowView(row, c.get('session')));
  });

  app.get('/runs/:id/events', async (c) => {
    // Asked before the stream starts: once it has, an error can no longer be a 404.
    await requireRun(ledger, c.req.param('id'));
    return runEvents(c, c.req.param('id'), {
      ledger,
      live,
      ...(options.eventsIntervalMs ? { intervalMs: options.eventsIntervalMs } : {}),
      logger: options.logger,
      phaseOf: queue?.phaseOf,
    });
  });

  registerActionRoutes(app, { ledger, actions, show });
  registerForgetRoutes(app, {
    ledger,
    forget: options.forget ?? new PersonForget({ ledger, logger: options.logger }),
    show,
  });
  registerAuditRoutes(app, {
    ledger,
    audits: options.audits ?? new JobAudits({ ledger, logger: options.logger, actions }),
    show,
  });

  if (queue) {
    app.get('/queue', async (c) => {
      const status = await queue.status();
      if (wantsJson(c)) return c.json(status);
      return show(c, 'Queue', queueView(status));
    });
    app.route('/queues', queue.bullBoard);
  }

  /** Distributed mode's schedules, for the jobs' summary; the runs page still answers without Redis. */
  async function registeredSchedules(): Promise<ScheduleInfo[]> {
    if (!queue) return [];
    try {
      return await queue.schedules();
    } catch (error) {
      options.logger.warn({ err: error }, 'the schedules could not be read for the jobs summary');
      return [];
    }
  }

  /** A page of results as a person's page lists them: failed first unless filtered or searched. */
  function pageOfResults(runId: string, filter: ResultsQuery): Promise<ResultsPage> {
    const parsed = parseResultsQuery(filter);
    return failedFirst(filter)
      ? loadResultsFailedFirst(ledger, runId, parsed, filter.rest === '1')
      : loadResults(ledger, runId, parsed);
  }

  async function download(c: Context<Env>, runId: string, format: 'csv' | 'json'): Promise<Response> {
    const parsed = parseResultsQuery(resultsQuery(c));
    await requireRun(ledger, runId);
    c.header(
      'Content-Type',
      format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
    );
    c.header(
      'Content-Disposition',
      `attachment; filename="evsync-${runId.replace(/[^\w-]/g, '')}.${format}"`,
    );
    return stream(c, async (out) => {
      await writeReport(
        ledger,
        runId,
        {
          format,
          ...(parsed.actions ? { actions: [...parsed.actions] } : {}),
          ...(parsed.kinds ? { kinds: [...parsed.kinds] } : {}),
          ...(parsed.errorCodes ? { errorCodes: parsed.errorCodes } : {}),
        },
        (chunk) => out.write(chunk).then(() => undefined),
      );
    });
  }

  return app;
}

/** What a form or an action's JSON may carry: a token, a CSRF token, a `next` path, a few fields. */
const FORM_BODY_LIMIT = 8 * 1024;
/** Bull Board's API (its actions, when enabled, send small JSON). */
const BOARD_BODY_LIMIT = 64 * 1024;

function tooLarge(c: Context, maxSize: number): Response {
  return c.json(
    {
      error: {
        code: CODE.EVSYNC_DASHBOARD_BODY_TOO_LARGE,
        message: `This request's body is larger than the ${maxSize} bytes this address takes.`,
      },
    },
    413,
  );
}

function originOf(c: Context): string {
  return new URL(c.req.url).origin;
}

const SCRIPTS = ['/assets/uplot.min.js', '/assets/dashboard.js'];
const STYLES = ['/assets/uplot.min.css'];

function resultsQuery(c: Context): ResultsQuery {
  const q = c.req.query();
  return {
    status: q.status,
    kind: q.kind,
    code: q.code,
    q: q.q,
    after: q.after,
    limit: q.limit,
    rest: q.rest,
  };
}
