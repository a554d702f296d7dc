import { cpSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import {
  cliWorkspace,
  startBuiltDashboard,
  type BuiltDashboard,
  type CliWorkspace,
} from '../helpers/built-cli.js';
import {
  chromiumAvailable,
  launchChromium,
  signedInPage,
  TABLE_LAYOUT_PROBLEMS,
} from '../helpers/chromium.js';

/** Screenshots, kept with the test output (gitignored) for a person to look at. */
const SHOTS = join(process.cwd(), 'test-output', 'dashboard-layout');
const JOBS = resolve(import.meta.dirname, '../../jobs');
const TOKEN = 'layout-test-token-0123456789abcdef';

/** {@link TABLE_LAYOUT_PROBLEMS} of the page as it is now. */
const layoutProblems = (page: Page): Promise<string[]> => page.evaluate<string[]>(TABLE_LAYOUT_PROBLEMS);

// Issue #40 items 1–2: the dashboard an operator opens on a phone at 7 a.m., and on a laptop.
// The built CLI runs the demo's job (rows fail and are skipped on purpose) and serves it.
describe.runIf(chromiumAvailable('the dashboard layout test'))(
  'the dashboard on a phone and a laptop',
  () => {
    let workspace: CliWorkspace;
    let sandbox: RunningSandbox;
    let dashboard: BuiltDashboard;
    let browser: Browser;
    let runId: string;
    const pages: Record<string, string> = {};

    beforeAll(async () => {
      mkdirSync(SHOTS, { recursive: true });
      workspace = cliWorkspace('evsync-layout-');
      sandbox = await workspace.sandbox();
      cpSync(JOBS, join(workspace.dir, 'jobs'), { recursive: true });
      const run = await workspace.run(sandbox, ['run', 'jobs/demo.yaml']);
      runId = /Run (\S+) \(demo/.exec(run.stdout)![1]!;
      dashboard = await startBuiltDashboard({
        cwd: workspace.dir,
        env: { ...workspace.envFor(sandbox), EVSYNC_DASHBOARD_TOKEN: TOKEN },
      });
      browser = await launchChromium();
      // An audit of the job, started as an operator starts it, for its page.
      const page = await signedIn({ width: 1280, height: 800 });
      await page.goto(`${dashboard.base}/runs/${runId}/audit`);
      await page.click('form.confirm button');
      await page.waitForURL(/\/audits\/[^/]+$/);
      await page.waitForSelector('#audit[data-status=finished]', { timeout: 60_000 });
      pages.audit = new URL(page.url()).pathname;
      await page.close();
      pages.runs = '/runs';
      pages.run = `/runs/${runId}`;
      // A row evsync rejected before any call (its e-mail is not one), and one sent.
      pages.rejectedRow = `/runs/${runId}/results/user/att-0100`;
      pages.sentRow = `/runs/${runId}/results/user/att-0001`;
    }, 240_000);

    afterAll(async () => {
      await browser?.close();
      await dashboard?.stop();
      await workspace?.close();
    });

    const signedIn = (viewport: { width: number; height: number }): Promise<Page> =>
      signedInPage(browser, dashboard.base, TOKEN, viewport);

    it('at 390 × 844 every label sits beside its value and no cell is off screen', async () => {
      const page = await signedIn({ width: 390, height: 844 });
      for (const [name, path] of Object.entries(pages)) {
        await page.goto(`${dashboard.base}${path}`);
        await page.waitForSelector('main');
        await page.screenshot({ path: join(SHOTS, `phone-${name}.png`), fullPage: true });
        expect(await layoutProblems(page), name).toEqual([]);
      }
      // The navigation's links are never cut in two.
      const wrapped = await page.evaluate<string[]>(
        `[...document.querySelectorAll('header.top nav a')].filter((a) => a.getClientRects().length > 1).map((a) => a.textContent)`,
      );
      expect(wrapped).toEqual([]);
      await page.close();
    }, 120_000);

    it('at 1280 × 800 a run id and its start time are on one line', async () => {
      const page = await signedIn({ width: 1280, height: 800 });
      await page.screenshot({ path: join(SHOTS, 'laptop-runs.png'), fullPage: true });
      const lines = await page.evaluate<{ id: number; started: number }>(`(() => {
      const row = document.querySelector('table.runs tbody tr');
      const lineCount = (element) => {
        const range = document.createRange();
        range.selectNodeContents(element);
        return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
      };
      return {
        id: lineCount(row.querySelector('td[data-label=Run] a')),
        started: lineCount(row.querySelector('td[data-label=Started]')),
      };
    })()`);
      expect(lines).toEqual({ id: 1, started: 1 });
      expect(await layoutProblems(page)).toEqual([]);
      await page.close();
    }, 60_000);

    it('a row evsync rejected says nothing was sent; the run page lists root causes first', async () => {
      const page = await signedIn({ width: 1280, height: 800 });
      await page.goto(`${dashboard.base}${pages.rejectedRow}`);
      expect(await page.locator('main').textContent()).toContain(
        'not sent: evsync rejected the row before any call',
      );
      expect(await page.locator('main').textContent()).not.toContain("Platform's message");
      await page.goto(`${dashboard.base}${pages.sentRow}`);
      expect(await page.locator('h2', { hasText: 'Params sent' }).count()).toBe(1);
      await page.goto(`${dashboard.base}${pages.run}`);
      const rows = page.locator('#errors tbody tr');
      const actions: string[] = [];
      for (let i = 0; i < (await rows.count()); i++)
        actions.push((await rows.nth(i).getAttribute('class')) ?? '');
      expect(actions.length).toBeGreaterThan(1);
      const firstSkip = actions.findIndex((name) => name.includes('skipped'));
      const lastFailure = actions.map((name) => name.includes('failed')).lastIndexOf(true);
      expect(firstSkip === -1 || lastFailure < firstSkip, actions.join(' ')).toBe(true);
      // Groups of alike errors say how many more, not a pattern of N's ("N-N-N N:N").
      const errors = (await page.locator('#errors').textContent()) ?? '';
      expect(errors).not.toContain('and alike');
      expect(errors).not.toMatch(/N-N-N|N:N/);
      expect(errors).toMatch(/and \d+ more like it/);
      // The chart's times as the page writes them: ISO, 24 h (uPlot's own: ":45.000", "11/28").
      await page.waitForSelector('#chart canvas');
      const chart = page.locator('#chart .u-over');
      await chart.scrollIntoViewIfNeeded();
      const box = (await chart.boundingBox())!;
      await page.mouse.move(box.x + box.width / 3, box.y + box.height / 2);
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 5 });
      await page.locator('section.chart-box').screenshot({ path: join(SHOTS, 'laptop-run-chart.png') });
      const legendTime =
        (await page.locator('#chart .u-legend .u-series').first().locator('.u-value').textContent()) ?? '';
      expect(legendTime).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      await page.screenshot({ path: join(SHOTS, 'laptop-run.png'), fullPage: true });
      await page.close();
    }, 60_000);
  },
);
