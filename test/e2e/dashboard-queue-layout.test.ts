import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltDashboard, type BuiltDashboard } from '../helpers/built-cli.js';
import {
  chromiumAvailable,
  launchChromium,
  signedInPage,
  TABLE_LAYOUT_PROBLEMS,
} from '../helpers/chromium.js';
import { startDistributedEnv, type DistributedEnv } from '../helpers/distributed-env.js';
import { serviceAvailable } from '../helpers/services.js';

const SHOTS = join(process.cwd(), 'test-output', 'dashboard-layout');
const TOKEN = 'queue-layout-token-0123456789abcdef';
const ready =
  chromiumAvailable('the queue page layout test') &&
  (await serviceAvailable('redis')) &&
  (await serviceAvailable('postgres'));

// Issue #40 items 1–2: distributed mode's queue page on a phone, and Bull Board's way back
// to evsync. A run through a worker first, so that the page has a phase and a worker.
describe.runIf(ready)('the queue page on a phone (distributed mode)', () => {
  let env: DistributedEnv;
  let dashboard: BuiltDashboard;
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    env = await startDistributedEnv();
    const worker = env.startWorker();
    const job = env.usersJob('queued', 20, 50, 4);
    const run = await env.cli(['run', job]);
    expect(run.code, run.output).toBe(0);
    // A schedule, for the page's table of them (long cells: job, cron, zone, next time).
    appendFileSync(join(env.dir, job), "schedule: { cron: '0 2 * * *', tz: Europe/Berlin }\n");
    const scheduled = await env.cli(['schedule', job]);
    expect(scheduled.code, scheduled.output).toBe(0);
    worker.child.kill('SIGTERM');
    await worker.exited;
    dashboard = await startBuiltDashboard({
      cwd: env.dir,
      env: { ...env.env, LOG_LEVEL: 'warn', EVSYNC_DASHBOARD_TOKEN: TOKEN },
    });
    browser = await launchChromium();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await dashboard?.stop();
    await env?.close();
  });

  const signedIn = (viewport: { width: number; height: number }): Promise<Page> =>
    signedInPage(browser, dashboard.base, TOKEN, viewport);

  it('at 390 × 844 the queue page has every label beside its value, the navigation on one line each', async () => {
    const page = await signedIn({ width: 390, height: 844 });
    await page.goto(`${dashboard.base}/queue`);
    await page.waitForSelector('main');
    await page.screenshot({ path: join(SHOTS, 'phone-queue.png'), fullPage: true });
    expect(await page.locator('main table').count()).toBeGreaterThan(0);
    expect(await page.evaluate<string[]>(TABLE_LAYOUT_PROBLEMS)).toEqual([]);
    // The header's links on one row: none cut in two, none pushed to a second row.
    const rows = await page.evaluate<number[]>(
      `[...document.querySelectorAll('header.top a, header.top button')].map((a) => a.getClientRects().length > 1 ? -1 : Math.round(a.getBoundingClientRect().top))`,
    );
    expect(new Set(rows).size, rows.join(' ')).toBe(1);
    await page.close();
  }, 60_000);

  it('Bull Board links back to evsync', async () => {
    const page = await signedIn({ width: 1280, height: 800 });
    await page.goto(`${dashboard.base}/queues`);
    // Its header's menu of links (the last of its actions) holds the way back.
    await page.locator('ul[class*="actions"] > li').last().locator('button').click();
    const back = page.locator('a[href="/runs"]');
    await back.first().waitFor({ state: 'visible', timeout: 30_000 });
    await page.screenshot({ path: join(SHOTS, 'laptop-bull-board.png'), fullPage: true });
    expect(await page.locator('a[href="/queue"]').count()).toBeGreaterThan(0);
    await page.close();
  }, 60_000);
});
