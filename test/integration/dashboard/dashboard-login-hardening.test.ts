import { describe, expect, it } from 'vitest';
import { createDashboardApp } from '../../../src/dashboard/dashboard-app.js';
import { LiveRuns } from '../../../src/dashboard/live-progress.js';
import { createLogger } from '../../../src/log/logger.js';
import { JSON_ACCEPT, TOKEN, useDashboardFixture } from './dashboard-fixture.js';

// Lockouts that end, and where a login may send the browser next, through the app's `fetch`.
describe('dashboard login hardening', () => {
  const fixture = useDashboardFixture(1);

  /** The fixture's ledger behind a throttle of short windows; `x-test-address` is the client's address. */
  function app(lockoutMs: number) {
    const f = fixture();
    const dashboard = createDashboardApp({
      ledger: f.ledger,
      token: TOKEN,
      logger: createLogger({ level: 'silent' }),
      actions: f.actions,
      live: new LiveRuns(),
      loginThrottle: { addressFailures: 3, lockoutMs, delayMs: 10, maxDelayMs: 20, spacingMs: 5 },
      clientAddress: (c) => c.req.header('x-test-address') ?? 'unknown',
    });
    return (address: string, token: string) =>
      dashboard.request('/runs', {
        headers: { ...JSON_ACCEPT, authorization: `Bearer ${token}`, 'x-test-address': address },
      });
  }

  it('locks an address out after its wrong tokens, refuses even the right one then, and lets it in after', async () => {
    const bearer = app(400);
    for (let i = 0; i < 3; i += 1) expect((await bearer('10.0.0.1', `wrong-${i}`)).status).toBe(401);
    const locked = await bearer('10.0.0.1', TOKEN);
    expect(locked.status).toBe(429);
    expect(await locked.json()).toEqual({
      error: { code: 'EVSYNC_DASHBOARD_LOCKED', message: expect.stringMatching(/try again in \d+ s/) },
    });
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // One address's lockout is not the operator's: another address gets in meanwhile.
    expect((await bearer('10.0.0.2', TOKEN)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await bearer('10.0.0.1', TOKEN)).status).toBe(200);
    // The right token cleared the count: three more wrong ones before the next lockout.
    for (let i = 0; i < 2; i += 1) expect((await bearer('10.0.0.1', `again-${i}`)).status).toBe(401);
    expect((await bearer('10.0.0.1', TOKEN)).status).toBe(200);
  });

  it('locks everyone out for a while after too many wrong tokens from all addresses together', async () => {
    const f = fixture();
    const dashboard = createDashboardApp({
      ledger: f.ledger,
      token: TOKEN,
      logger: createLogger({ level: 'silent' }),
      actions: f.actions,
      live: new LiveRuns(),
      loginThrottle: { globalFailures: 5, globalLockoutMs: 400, delayMs: 1, maxDelayMs: 1, spacingMs: 1 },
      clientAddress: (c) => c.req.header('x-test-address') ?? 'unknown',
    });
    const bearer = (address: string, token: string) =>
      dashboard.request('/runs', {
        headers: { ...JSON_ACCEPT, authorization: `Bearer ${token}`, 'x-test-address': address },
      });
    for (let i = 0; i < 5; i += 1) expect((await bearer(`10.1.0.${i}`, 'wrong')).status).toBe(401);
    expect((await bearer('10.1.1.1', TOKEN)).status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await bearer('10.1.1.1', TOKEN)).status).toBe(200);
  });

  describe('next=', () => {
    const login = (next: string) =>
      fixture().request(`/login?token=${TOKEN}&next=${next}`, { bearer: false });

    it('sends the browser only to a path of the dashboard', async () => {
      for (const next of [
        '/%09/evil.example/x', // a tab, which a browser drops: `//evil.example/x`
        '%09/evil.example',
        '/.//evil.example/x', // parses to the path `//evil.example/x`
        '/%5C/evil.example',
        '//evil.example',
        'https://evil.example/',
        'javascript:alert(1)',
        'runs',
      ]) {
        const answer = await login(next);
        expect(answer.status, next).toBe(303);
        expect(answer.headers.get('location'), next).toBe('/runs');
      }
      const kept = await login(encodeURIComponent(`/runs/${fixture().runId}?status=failed#results`));
      expect(kept.headers.get('location')).toBe(`/runs/${fixture().runId}?status=failed#results`);
      // The form's hidden field holds the same path, and the form posts it back.
      const form = await (
        await fixture().request('/login?next=/%09/evil.example/x', { bearer: false })
      ).text();
      expect(form).toContain('name="next" value="/runs"');
    });

    it('answers 400, not 500, to a line break or NUL', async () => {
      for (const next of ['/runs%0d%0aSet-Cookie:x=1', '/runs%0a', '/runs%00']) {
        const answer = await fixture().request(`/login?next=${next}`, {
          bearer: false,
          headers: JSON_ACCEPT,
        });
        expect(answer.status, next).toBe(400);
        expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('EVSYNC_USAGE');
        const posted = await fixture().request('/login', {
          method: 'POST',
          bearer: false,
          headers: JSON_ACCEPT,
          body: new URLSearchParams({ token: TOKEN, next: decodeURIComponent(next) }),
        });
        expect(posted.status, next).toBe(400);
      }
    });
  });
});
