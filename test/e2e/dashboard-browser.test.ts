import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromiumAvailable, launchChromium } from '../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveDashboard, type RunningDashboard } from '../../src/dashboard/serve-dashboard.js';
import { createLogger } from '../../src/log/logger.js';
import { conferenceHost } from '../../src/model/conference.js';
import { PlatformClient } from '../../src/platform/platform-client.js';
import { dashboardFixture, XSS, type DashboardFixture } from '../integration/dashboard/dashboard-fixture.js';

/** Screenshots, kept with the test output (gitignored) for a person to look at. */
const SHOTS = join(process.cwd(), 'test-output', 'dashboard');
const FAILING = 40;

// The operator's morning, in a real browser: log in, open last night's run, find the rows
// that failed, retry them once the platform accepts them, and watch them land live; then
// audit the job against the platform and repair what an organiser changed there by hand.
describe.runIf(chromiumAvailable('the dashboard browser test'))('the dashboard in a browser', () => {
  let f: DashboardFixture;
  let dashboard: RunningDashboard;
  let browser: Browser;
  let page: Page;
  const alerts: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    f = await dashboardFixture(FAILING);
    dashboard = await serveDashboard({
      ledger: f.ledger,
      logger: createLogger({ level: 'silent' }),
      port: 0,
      token: 'browser-test-token',
      eventsIntervalMs: 200,
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // An XSS payload that ran would open a dialog; the retry button's confirm() is accepted.
    page.on('dialog', (dialog) => {
      if (dialog.type() === 'alert') alerts.push(dialog.message());
      void dialog.accept();
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await dashboard?.close();
    await f?.close();
  });

  it('logs in and lists the runs', async () => {
    await page.goto(`${dashboard.url}/runs`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.fill('input[name=token]', 'browser-test-token');
    await page.click('form.login button');
    await page.waitForURL(`${dashboard.url}/runs`);
    await expect
      .poll(() => page.locator(`tr[data-run="${f.runId}"] [data-count=failed]`).textContent())
      .toMatch(String(FAILING + 1));
    // Its conference, by host; the select of the known conferences narrows the list to it.
    const host = conferenceHost(f.sandbox.url);
    expect(await page.locator(`tr[data-run="${f.runId}"] [data-conference]`).textContent()).toContain(host);
    await page.selectOption('select[name=conference]', { label: host });
    await page.click('form.filters button');
    await page.waitForURL((url) => url.searchParams.has('conference'));
    expect(await page.locator('h1').textContent()).toBe(`Runs of ${host}`);
    await page.screenshot({ path: join(SHOTS, '1-runs.png'), fullPage: true });
  });

  it('opens the run with its failed rows, errors grouped, and its chart', async () => {
    await page.click(`a[href="/runs/${f.runId}"]`);
    await page.waitForSelector('#errors');
    expect(await page.locator('#errors tbody tr').first().textContent()).toContain('EVSYNC_PLATFORM_INVALID');
    await page.waitForSelector('#chart .uplot');
    await page.screenshot({ path: join(SHOTS, '2-run.png'), fullPage: true });
  });

  it('filters the failed events, and shows the XSS row as text', async () => {
    await page.selectOption('select[name=status]', 'failed');
    await page.selectOption('select[name=kind]', 'event');
    await page.click('form.filters button');
    await page.waitForURL(/status=failed&kind=event/);
    expect(await page.locator('table.results tbody tr').count()).toBe(FAILING);
    await page.screenshot({ path: join(SHOTS, '3-filtered.png'), fullPage: true });

    await page.click(`a[href$="/results/event/de${FAILING}"]`);
    await page.waitForSelector('table.params');
    expect(await page.locator('table.params').textContent()).toContain(XSS);
    expect(await page.locator('main img').count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, '4-xss-row.png'), fullPage: true });
    expect(alerts).toEqual([]);
  });

  it('retries them with the platform now accepting them, and watches them turn green live', async () => {
    f.acceptFailed();
    // Slow answers, so that the run is still going when its page opens and its first rows
    // land: 40 intents, 8 at a time, take about 5 s (at 500 ms, 2.5 s was too short on a
    // loaded machine: the run ended before the check that its progress shows).
    f.sandbox.faults.set({ latency: { minMs: 1000, maxMs: 1000 } });
    await page.goto(`${dashboard.url}/runs/${f.runId}`);
    await page.click('a.button[href$="/retry"]');
    await page.waitForSelector('form.confirm');
    expect(await page.locator('main').textContent()).toContain(`the ${FAILING} failed intent(s)`);
    await page.screenshot({ path: join(SHOTS, '5-retry-confirm.png'), fullPage: true });
    await page.click('form.confirm button');
    await page.waitForURL((url) => /^\/runs\/[^/]+$/.test(url.pathname) && !url.pathname.endsWith(f.runId));
    const newRun = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]!);
    expect(await page.locator('#run').getAttribute('data-status')).toBe('running');
    // Rows land while it runs: some green, not all yet, and the progress bars move.
    await page.waitForSelector('table.results tbody tr.a-created', { timeout: 20_000 });
    const landed = await page.locator('table.results tbody tr.a-created').count();
    expect(landed).toBeLessThan(FAILING);
    expect(await page.locator('#live').isVisible()).toBe(true);
    await page.screenshot({ path: join(SHOTS, '6-retry-live.png'), fullPage: true });
    // The row the mapping refused (dubad, its e-mail still `nope` in the source) is retried
    // with the others and fails again: the run ends "completed, 1 failed", in its own colour.
    await page.waitForSelector('#run dd .badge.s-completed-failed', { timeout: 30_000 });
    expect(await page.locator('#run dd .badge').textContent()).toContain('completed, 1 failed');
    await expect
      .poll(() => page.locator('table.results tbody tr.a-created').count(), { timeout: 10_000 })
      .toBe(FAILING);
    expect(await page.locator('table.results tbody tr.a-failed').count()).toBe(1);
    expect(await page.locator('table.results tbody tr.a-failed').textContent()).toContain('dubad');
    // A completed run offers no resume once it has ended.
    expect(await page.locator('a.button[href$="/resume"]').count()).toBe(0);
    expect(await page.locator('tr[data-kind=all] [data-count=created]').textContent()).toMatch(
      String(FAILING),
    );
    await page.screenshot({ path: join(SHOTS, '7-retry-done.png'), fullPage: true });
    expect((await f.ledger.getRun(newRun))?.options.retryOf).toBe(f.runId);
    f.sandbox.faults.set({});
  });

  it('audits the job, finds what was changed by hand, and repairs it', async () => {
    await page.goto(`${dashboard.url}/runs/${f.runId}`);
    await page.click('a.button[href$="/audit"]');
    await page.waitForSelector('form.confirm');
    expect(await page.locator('main').textContent()).toContain('It only reads');
    await page.click('form.confirm button');
    await page.waitForURL(/\/audits\/[^/]+$/);
    // The page reloads itself while the audit reads; the retry above synced every row.
    await page.waitForSelector('#audit[data-status=finished]', { timeout: 20_000 });
    expect(await page.locator('[data-verdict]').textContent()).toBe('the platform is as the source says.');
    expect(await page.locator('tr[data-kind=event] [data-count=in_sync]').textContent()).toBe(
      String(FAILING + 1),
    );
    expect(await page.locator('#drift').count()).toBe(0);
    expect(await page.locator('a.button[href$="/repair"]').count()).toBe(0);

    // An organiser renames a session on the platform by hand.
    const admin = new PlatformClient({
      baseUrl: f.sandbox.url,
      keyId: f.sandbox.keyId,
      signingKey: f.sandbox.signingKey,
    });
    try {
      await admin.events.update({ clientId: 'de1' }, { 'event[item_attributes][display_value]': XSS });
    } finally {
      await admin.close();
    }
    await page.goto(`${dashboard.url}/runs/${f.runId}/audit`);
    await page.click('form.confirm button');
    await page.waitForSelector('#audit[data-status=finished]', { timeout: 20_000 });
    expect(await page.locator('#drift tbody tr').count()).toBe(1);
    const entry = page.locator('#drift tbody tr[data-type=changed]');
    expect(await entry.locator('td').nth(1).textContent()).toBe('de1');
    expect(await entry.textContent()).toContain('event[item_attributes][display_value]');
    expect(await page.locator('tr[data-kind=event] [data-count=changed]').textContent()).toBe('1');
    expect(await page.locator('main img').count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, '8-audit-drift.png'), fullPage: true });

    await page.click('a.button[href$="/repair"]');
    await page.waitForSelector('form.confirm');
    await page.click('form.confirm button');
    await page.waitForURL((url) => /^\/runs\/[^/]+$/.test(url.pathname) && !url.pathname.endsWith(f.runId));
    // The source's row that fails the mapping fails again: completed, and not a plain success.
    await page.waitForSelector('#run dd .badge.s-completed-failed', { timeout: 30_000 });
    expect(await page.locator('#run dd .badge').first().textContent()).toBe('completed, 1 failed');
    expect(await page.locator('#run dl.facts').textContent()).toContain('audit');
    expect(await page.locator('tr[data-kind=event] [data-count=updated]').textContent()).toBe('1');
    expect(f.sandbox.state.eventByClientId('de1')?.name).toBe('Sponsored 1');
    expect(alerts).toEqual([]);
  });

  it('stays usable on a phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${dashboard.url}/runs/${f.runId}`);
    await page.waitForSelector('#chart .uplot');
    await page.screenshot({ path: join(SHOTS, '9-phone-run.png'), fullPage: false });
    // Nothing wider than the screen but the tables, which scroll inside their box.
    const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    expect(alerts).toEqual([]);
  });
});
