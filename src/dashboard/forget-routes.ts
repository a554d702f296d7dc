import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { CODE } from '../errors/codes.js';
import { ConfigError } from '../errors/evsync-error.js';
import type { Ledger } from '../ledger/ledger.js';
import { isErasureMarker } from '../model/erasure.js';
import { forgetOutcomeJson } from '../sync/erasure/forget-person.js';
import { type DashboardEnv, formField } from './dashboard-auth.js';
import { wantsJson } from './negotiate.js';
import type { DashboardForget, PersonForget } from './person-forget.js';
import { problemView } from './views/action-views.js';
import {
  conferenceName,
  erasurePath,
  ERASURES_PATH,
  erasuresView,
  erasureView,
  forgetConfirmView,
} from './views/forget-view.js';
import type { Html } from './views/page-layout.js';

type Env = DashboardEnv;

export interface ForgetRoutesDeps {
  ledger: Ledger;
  forget: PersonForget;
  show: (c: Context<Env>, title: string, body: Html, status?: 404) => Response | Promise<Response>;
}

/** The row's client_id, as the row's page carries it; the reason as `evsync forget --reason` takes it. */
const forgetForm = z.object({
  client_id: z.string().min(1, 'client_id: the user row to forget').max(1000),
  reason: z
    .string()
    .trim()
    .max(500, 'reason: at most 500 characters')
    .optional()
    .transform((reason) => (reason === '' ? undefined : reason)),
});

/** What the page after a forget is told in its query: nothing of the person. */
const afterQuery = z.object({
  run: z.string().max(200).optional(),
  row: z.string().refine(isErasureMarker).optional().catch(undefined),
  redis_removed: z.coerce.number().int().min(0).optional().catch(undefined),
  redis_active: z.coerce.number().int().min(0).optional().catch(undefined),
  redis: z.literal('unreachable').optional().catch(undefined),
});

/**
 * "Forget this person…" on a user row (docs/privacy.md, "From the dashboard"), asked first
 * as the other actions are: `GET` shows the dry run with a CSRF form, `POST` forgets and
 * answers 303 to the erasure's page (or the outcome as JSON). `/erasures` lists the tombstones.
 */
export function registerForgetRoutes(app: Hono<Env>, { ledger, forget, show }: ForgetRoutesDeps): void {
  app.get('/runs/:id/forget', async (c) => {
    const { client_id: clientId } = parseForm({ client_id: c.req.query('client_id') });
    const preview = await forget.preview(c.req.param('id'), clientId);
    if (wantsJson(c)) return c.json(outcomeJson(preview));
    return show(c, 'Forget this person', forgetConfirmView(preview, clientId, c.get('session')));
  });
  app.post('/runs/:id/forget', async (c) => {
    const form = parseForm({
      client_id: await formField(c, 'client_id'),
      reason: await formField(c, 'reason'),
    });
    const done = await forget.forget(c.req.param('id'), form.client_id, form.reason);
    if (wantsJson(c)) return c.json(outcomeJson(done));
    const tombstone = done.outcome.tombstone;
    if (tombstone === undefined) return c.redirect(ERASURES_PATH, 303);
    const params = new URLSearchParams({ run: done.run.id, ...(done.marker ? { row: done.marker } : {}) });
    if (done.redisJobs === 'unreachable') params.set('redis', 'unreachable');
    else if (done.redisJobs) {
      params.set('redis_removed', String(done.redisJobs.removed));
      params.set('redis_active', String(done.redisJobs.active));
    }
    return c.redirect(`${erasurePath(tombstone.id)}?${params.toString()}`, 303);
  });

  app.get(ERASURES_PATH, async (c) => {
    const [tombstones, conferences] = await Promise.all([ledger.erasure().list(), ledger.listConferences()]);
    if (wantsJson(c)) return c.json({ tombstones });
    return show(c, 'Erasures', erasuresView(tombstones, conferences));
  });
  app.get(`${ERASURES_PATH}/:id`, async (c) => {
    const id = Number(c.req.param('id'));
    const [tombstones, conferences] = await Promise.all([ledger.erasure().list(), ledger.listConferences()]);
    const tombstone = tombstones.find((t) => t.id === id);
    if (tombstone === undefined) {
      const message = `No erasure #${c.req.param('id')} in this ledger.`;
      if (wantsJson(c)) return c.json({ error: { code: null, message } }, 404);
      return show(c, 'Not found', problemView('Not found', message), 404);
    }
    if (wantsJson(c)) return c.json({ tombstone });
    const after = afterQuery.parse(c.req.query());
    return show(
      c,
      `Erasure #${tombstone.id}`,
      erasureView(tombstone, conferenceName(tombstone.conferenceId, conferences), {
        runId: after.run,
        marker: after.row,
        redisNote:
          after.redis === 'unreachable'
            ? 'Redis did not answer: the queue’s jobs naming them were left there (finished jobs expire after an hour, failed ones after a day).'
            : after.redis_removed === undefined
              ? undefined
              : `Redis: removed ${after.redis_removed} queued or finished job(s) naming them` +
                (after.redis_active
                  ? `; ${after.redis_active} being sent now, left to finish: forget them again after that run.`
                  : '.'),
      }),
    );
  });
}

function parseForm(fields: Record<string, string | undefined>): z.infer<typeof forgetForm> {
  const parsed = forgetForm.safeParse(fields);
  if (!parsed.success)
    throw new ConfigError(parsed.error.issues.map((issue) => issue.message).join('\n'), {
      code: CODE.EVSYNC_USAGE,
    });
  return parsed.data;
}

/** As `evsync forget --json` answers: counts and ids. */
function outcomeJson(done: DashboardForget): Record<string, unknown> {
  return {
    conference: done.conference,
    ...forgetOutcomeJson(done.outcome),
    ...(done.marker ? { marker: done.marker } : {}),
    ...(done.redisJobs ? { redisJobs: done.redisJobs } : {}),
  };
}
