import { beforeEach, describe, expect, it } from 'vitest';
import {
  PASSWORD,
  TOKEN,
  XSS,
  type DashboardFixture,
  JSON_ACCEPT,
  useDashboardFixture,
} from './dashboard-fixture.js';

// The dashboard's pages and JSON answers over one run made by `evsync run` against a
// sandbox (embedded ledger), through the Hono app's `fetch`: no port, no browser.
describe('dashboard pages', () => {
  const fixture = useDashboardFixture();
  let f: DashboardFixture;
  beforeEach(() => {
    f = fixture();
  });

  describe('login', () => {
    it('redirects a page without a session to the login form, and answers 401 to JSON and events', async () => {
      const page = await f.request('/runs?limit=5', { bearer: false });
      expect(page.status).toBe(303);
      expect(page.headers.get('location')).toBe(`/login?next=${encodeURIComponent('/runs?limit=5')}`);
      for (const [path, accept] of [
        ['/runs', 'application/json'],
        [`/runs/${f.runId}/results`, 'application/json'],
        [`/runs/${f.runId}/events`, 'text/event-stream'],
      ] as const) {
        const refused = await f.request(path, { bearer: false, headers: { accept } });
        expect(refused.status, path).toBe(401);
      }
      const json = await f.request('/runs', { bearer: false, headers: JSON_ACCEPT });
      expect(await json.json()).toEqual({
        error: { code: 'EVSYNC_DASHBOARD_LOGIN', message: expect.any(String) },
      });
      const wrong = await f.request('/runs', { headers: { ...JSON_ACCEPT, authorization: 'Bearer nope' } });
      expect(wrong.status).toBe(401);
      const post = await f.request(`/runs/${f.runId}/retry`, { method: 'POST', bearer: false });
      expect(post.status).toBe(401);
      // Assets are behind the login too, but for the style sheet the login page needs.
      expect((await f.request('/assets/dashboard.js', { bearer: false })).status).toBe(303);
      const style = await f.request('/assets/dashboard.css', { bearer: false });
      expect(style.status).toBe(200);
      expect(style.headers.get('content-type')).toMatch(/^text\/css/);
      expect((await f.request('/assets/nothing.css', { bearer: false })).status).toBe(303);
    });

    it('logs a browser in with the form: an HttpOnly, SameSite=Strict cookie, and only a local next page', async () => {
      const bad = await f.request('/login', { method: 'POST', bearer: false, body: form({ token: 'nope' }) });
      expect(bad.status).toBe(401);
      expect(bad.headers.get('set-cookie')).toBeNull();
      const good = await f.request('/login', {
        method: 'POST',
        bearer: false,
        body: form({ token: TOKEN, next: '//evil.example/x' }),
      });
      expect(good.status).toBe(303);
      expect(good.headers.get('location')).toBe('/runs');
      const cookie = good.headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(/^evsync_session=[\w-]{40,};/);
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Strict/);
      const session = cookie.split(';')[0]!;
      const runs = await f.request('/runs', { bearer: false, headers: { cookie: session } });
      expect(runs.status).toBe(200);
      expect(await runs.text()).toContain(f.runId);
      // The login page never shows the token; the login URL logs in at once.
      const viaUrl = await f.request(`/login?token=${TOKEN}&next=/runs/${f.runId}`, { bearer: false });
      expect(viaUrl.status).toBe(303);
      expect(viaUrl.headers.get('location')).toBe(`/runs/${f.runId}`);
      expect(viaUrl.headers.get('set-cookie')).toMatch(/HttpOnly/);
      const loginPage = await (await f.request('/login', { bearer: false })).text();
      expect(loginPage).not.toContain(TOKEN);
    });

    it('refuses a POST through a session without its CSRF token (403), and takes it with one', async () => {
      const login = await f.request('/login', {
        method: 'POST',
        bearer: false,
        body: form({ token: TOKEN }),
      });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
      const confirm = await (
        await f.request(`/runs/${f.runId}/retry?kind=user`, { bearer: false, headers: { cookie } })
      ).text();
      const csrf = /name="_csrf" value="([^"]+)"/.exec(confirm)?.[1];
      expect(csrf).toBeDefined();
      const without = await f.request(`/runs/${f.runId}/retry`, {
        method: 'POST',
        bearer: false,
        headers: { cookie },
        body: form({ kind: 'user' }),
      });
      expect(without.status).toBe(403);
      expect(await without.json()).toMatchObject({ error: { code: 'EVSYNC_DASHBOARD_CSRF' } });
      const forged = await f.request(`/runs/${f.runId}/retry`, {
        method: 'POST',
        bearer: false,
        headers: { cookie },
        body: form({ kind: 'user', _csrf: 'x'.repeat(43) }),
      });
      expect(forged.status).toBe(403);
      // With the token it goes through to the action: users failed only in the mapping,
      // so there is nothing to retry (409), and nothing is sent.
      const calls = f.sandbox.counters.snapshot().total;
      const withToken = await f.request(`/runs/${f.runId}/retry`, {
        method: 'POST',
        bearer: false,
        headers: { cookie, accept: 'application/json' },
        body: form({ kind: 'user', _csrf: csrf! }),
      });
      expect(withToken.status).toBe(409);
      expect(await withToken.json()).toMatchObject({ error: { code: 'EVSYNC_NOTHING_TO_RETRY' } });
      expect(f.sandbox.counters.snapshot().total).toBe(calls);
      // Logging out ends the session.
      await f.request('/logout', {
        method: 'POST',
        bearer: false,
        headers: { cookie },
        body: form({ _csrf: csrf! }),
      });
      expect((await f.request('/runs', { bearer: false, headers: { cookie } })).status).toBe(303);
    });
  });

  describe('pages and JSON', () => {
    it('lists runs with job, mode, trigger, status and counts per action', async () => {
      const html = await (await f.request('/runs')).text();
      expect(html).toContain(`href="/runs/${f.runId}"`);
      expect(html).toMatch(/data-count="failed">\s*4\s*</);
      const { runs } = (await (await f.request('/runs', { headers: JSON_ACCEPT })).json()) as {
        runs: Array<Record<string, unknown>>;
      };
      expect(runs[0]).toMatchObject({
        id: f.runId,
        jobName: 'dash',
        mode: 'upsert',
        trigger: 'manual',
        status: 'completed',
        counts: { created: 3, failed: 4 },
        durationMs: expect.any(Number),
      });
    });

    it('shows a run: counts per kind, errors grouped with the meaning of their code', async () => {
      const response = await f.request(`/runs/${f.runId}`, { headers: JSON_ACCEPT });
      const data = (await response.json()) as {
        countsByKind: Record<string, Record<string, number>>;
        errors: Array<{ code: string; count: number; meaning: string | null }>;
      };
      expect(data.countsByKind).toEqual({
        user: { created: 2, failed: 1 },
        event: { created: 1, failed: 3 },
      });
      expect(data.errors[0]).toMatchObject({ code: 'EVSYNC_PLATFORM_INVALID', count: 3 });
      expect(data.errors[0]!.meaning).toMatch(/422/);
      const html = await (await f.request(`/runs/${f.runId}`)).text();
      expect(html).toContain('EVSYNC_PLATFORM_INVALID');
      expect(html).toContain(`/runs/${f.runId}/results?status=failed&amp;code=EVSYNC_PLATFORM_INVALID`);
      expect(response.headers.get('content-type')).toMatch(/application\/json/);
      const page = await f.request(`/runs/${f.runId}`);
      expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    });

    it('badges a run with failed rows apart from a success, and offers the retry, not a resume', async () => {
      const html = await (await f.request(`/runs/${f.runId}`)).text();
      expect(html).toContain('<span class="badge s-completed-failed" data-status>completed, 4 failed</span>');
      expect(html).toContain('data-primary="retry"');
      expect(html).toMatch(/href="\/runs\/[^"]+\/retry"/);
      expect(html).not.toMatch(/href="\/runs\/[^"]+\/resume"/);
      expect(html).toMatch(/data-next-step>\s*It ran to its end and 4 rows failed/);
      // Its buttons alone, as the page's script asks for them once a live run ends.
      const fragment = await (
        await f.request(`/runs/${f.runId}`, { headers: { 'x-fragment': 'actions' } })
      ).text();
      expect(fragment.trimStart()).toMatch(/^<section id="actions"/);
      // Times in UTC, for the page's script to write in the browser's zone.
      expect(html).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[\d:.]+Z" title="[\d-]+ [\d:]+ UTC">/);
    });

    it('lists the failed rows first, then the others, each once across the pages', async () => {
      const keys: string[] = [];
      const actions: string[] = [];
      let path: string | null = `/runs/${f.runId}/results?limit=3`;
      while (path !== null) {
        const html: string = await (await f.request(path)).text();
        for (const [, action, key] of html.matchAll(/<tr class="a-(\w+)" data-key="([^"]+)"/g)) {
          actions.push(action!);
          keys.push(key!);
        }
        const next = /rel="next" href="([^"]+)"/.exec(html)?.[1];
        path = next === undefined ? null : next.replaceAll('&amp;', '&');
      }
      expect(actions).toEqual(['failed', 'failed', 'failed', 'failed', 'created', 'created', 'created']);
      expect(new Set(keys).size).toBe(7);
      // Scripts read the `seq` order, as before.
      const json = (await (
        await f.request(`/runs/${f.runId}/results?limit=50`, { headers: JSON_ACCEPT })
      ).json()) as { results: Array<{ key: string; seq: number }> };
      expect(json.results.map((r) => r.seq)).toEqual(
        [...json.results.map((r) => r.seq)].sort((a, b) => a - b),
      );
    });

    it('escapes everything shown from data: an HTML cell shows as text', async () => {
      expect(await (await f.request(`/runs/${f.runId}`)).text()).not.toContain('<img');
      for (const path of [
        `/runs/${f.runId}/results?q=${encodeURIComponent(XSS)}`,
        `/runs/${f.runId}/results/user/du2`,
        `/runs/${f.runId}/results/event/de3`,
      ]) {
        const html = await (await f.request(path)).text();
        expect(html, path).not.toContain('<img');
        expect(html, path).toContain('&lt;img src=x onerror=alert(1)&gt;');
      }
    });

    it('filters results by action, kind, code and text, with keyset pages that never repeat a row', async () => {
      const all = await results('');
      expect(all.results).toHaveLength(7);
      const seqs: number[] = [];
      let after: number | null = 0;
      while (after !== null) {
        const page = await results(`limit=2&after=${after}`);
        expect(page.results.length).toBeLessThanOrEqual(2);
        seqs.push(...page.results.map((row) => row.seq));
        after = page.next;
      }
      expect(seqs).toEqual(all.results.map((row) => row.seq));
      const failedEvents = await results('status=failed&kind=event');
      // In the order they were recorded: the three failed events were sent side by side.
      expect(failedEvents.results.map((row) => row.key).sort()).toEqual(['de1', 'de2', 'de3']);
      expect(failedEvents.next).toBeNull();
      expect((await results('q=DU1@EXAMPLE')).results.map((row) => row.key)).toEqual(['du1']);
      expect((await results('q=Two')).results.map((row) => row.key)).toEqual(['du2']);
      // A row that failed the mapping is keyed by its client_id, and found by its name.
      expect((await results('code=INVALID_EMAIL')).results.map((row) => row.key)).toEqual(['dubad']);
      expect((await results('q=Cy Three')).results.map((row) => row.key)).toEqual(['dubad']);
      // A password is stored redacted: searching for it finds nothing.
      expect((await results(`q=${PASSWORD}`)).results).toEqual([]);
      const bad = await f.request(`/runs/${f.runId}/results?status=sent`, { headers: JSON_ACCEPT });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ error: { code: 'EVSYNC_CONFIG' } });
      // The HTML page links the next page with `after`.
      const html = await (await f.request(`/runs/${f.runId}/results?limit=2`)).text();
      expect(html).toMatch(new RegExp(`rel="next" href="/runs/${f.runId}/results\\?after=\\d+"`));
    });

    it('shows a row: origin, params with secrets redacted, the last attempt, platform id, history', async () => {
      const row = (await (
        await f.request(`/runs/${f.runId}/results/user/du1`, { headers: JSON_ACCEPT })
      ).json()) as {
        result: { origin: unknown; params: Record<string, string>; httpStatus: number; attempts: number };
        platformId: number;
        history: Array<{ jobName: string }>;
      };
      expect(row.result.origin).toEqual({ source: './users.csv', row: 1, line: 2 });
      expect(row.result.params['user[svc_auth_attributes][password]']).toBe('[redacted]');
      expect(row.platformId).toEqual(expect.any(Number));
      expect(row.history).toHaveLength(1);
      expect(row.history[0]!.jobName).toBe('dash');
      // A row that failed the mapping, by its client_id: it can be retried alone.
      const placed = await (await f.request(`/runs/${f.runId}/results/user/dubad`)).text();
      expect(placed).toContain('is not an e-mail address');
      expect(placed).toContain('Retry this row');
      expect((await f.request(`/runs/${f.runId}/results/user/nobody`)).status).toBe(404);
      const failedRow = await (await f.request(`/runs/${f.runId}/results/event/de1`)).text();
      expect(failedRow).toContain('Retry this row');
      expect(failedRow).toContain('names no exhibitor');
    });

    it('downloads results as CSV with formula cells neutralised, or as JSON; never a secret', async () => {
      const csv = await f.request(`/runs/${f.runId}/results?format=csv`);
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(csv.headers.get('content-disposition')).toMatch(/attachment/);
      const lines = (await csv.text()).split('\r\n').filter(Boolean);
      expect(lines).toHaveLength(8);
      expect(lines.some((line) => line.includes(",'=1+2,"))).toBe(true);
      for (const line of lines.slice(1))
        expect(line.split(',').some((cell) => /^[=+\-@]/.test(cell))).toBe(false);
      const failed = await (
        await f.request(`/runs/${f.runId}/results?format=json&status=failed&kind=event`)
      ).json();
      expect((failed as Array<{ key: string }>).map((row) => row.key).sort()).toEqual(['de1', 'de2', 'de3']);
      // A page filtered by code downloads what it shows, and links to that download.
      const byCode = `/runs/${f.runId}/results?status=failed&code=INVALID_EMAIL`;
      expect(await (await f.request(byCode)).text()).toContain('code=INVALID_EMAIL&amp;format=csv');
      const invalid = (await (await f.request(`${byCode}&format=json`)).json()) as Array<{
        error_code: string;
      }>;
      expect(invalid.length).toBeGreaterThan(0);
      expect(invalid.every((row) => row.error_code === 'INVALID_EMAIL')).toBe(true);
      const everything = [
        await (await f.request(`/runs/${f.runId}/results?format=json`)).text(),
        await (await f.request(`/runs/${f.runId}/results?format=csv`)).text(),
        await (await f.request(`/runs/${f.runId}`, { headers: JSON_ACCEPT })).text(),
        await (await f.request(`/runs/${f.runId}/results/user/du1`)).text(),
        await (await f.request('/runs', { headers: JSON_ACCEPT })).text(),
      ].join('\n');
      expect(everything).not.toContain(PASSWORD);
      expect(everything).not.toContain(f.sandbox.signingKey);
      expect(everything).not.toContain(TOKEN);
    });

    it('streams a finished run as one `end` event, and answers its timeline for the chart', async () => {
      const events = await (await f.request(`/runs/${f.runId}/events`)).text();
      const match = /^event: end\ndata: (.+)$/m.exec(events);
      expect(match).not.toBeNull();
      expect(JSON.parse(match![1]!)).toMatchObject({ status: 'completed', done: 7, totals: { failed: 4 } });
      const timeline = (await (await f.request(`/runs/${f.runId}/timeline`)).json()) as {
        bucketSeconds: number;
        points: Array<{ results: number; failed: number }>;
      };
      expect(timeline.bucketSeconds).toBeGreaterThanOrEqual(1);
      expect(timeline.points.reduce((sum, point) => sum + point.results, 0)).toBe(7);
      expect(timeline.points.reduce((sum, point) => sum + point.failed, 0)).toBe(4);
      const uplot = await f.request('/assets/uplot.min.js');
      expect(uplot.headers.get('content-type')).toMatch(/javascript/);
      expect((await uplot.text()).length).toBeGreaterThan(10_000);
    });

    it('answers 404 for an unknown run, as JSON or as a page', async () => {
      const json = await f.request('/runs/no-such-run', { headers: JSON_ACCEPT });
      expect(json.status).toBe(404);
      expect(await json.json()).toMatchObject({ error: { code: 'EVSYNC_LEDGER_UNKNOWN_RUN' } });
      expect((await f.request('/runs/no-such-run')).status).toBe(404);
      expect((await f.request('/runs/no-such-run/timeline')).status).toBe(404);
      expect((await f.request('/runs/no-such-run/events')).status).toBe(404);
    });
  });

  async function results(search: string): Promise<{
    results: Array<{ seq: number; key: string }>;
    next: number | null;
  }> {
    const response = await f.request(`/runs/${f.runId}/results?${search}`, { headers: JSON_ACCEPT });
    expect(response.status).toBe(200);
    return (await response.json()) as { results: Array<{ seq: number; key: string }>; next: number | null };
  }
});

function form(fields: Record<string, string>): URLSearchParams {
  return new URLSearchParams(fields);
}
