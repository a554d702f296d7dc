import type { Browser, Page } from 'playwright-core';
import { chromiumAvailable, launchChromium, TABLE_LAYOUT_PROBLEMS } from '../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import {
  cliWorkspace,
  startBuiltDashboard,
  type BuiltDashboard,
  type CliWorkspace,
} from '../helpers/built-cli.js';

const TOKEN = 'failure-day-token-0123456789abcdef';
/** Screenshots for a person to look at. */
const SHOT = (name: string) => `/tmp/dash29-${name}.png`;
const HEADER = 'client_id,email,first_name,last_name\n';
/** Ten people, three of them with an address that is not one: a run that completes with 3 failed. */
const PEOPLE =
  HEADER +
  Array.from({ length: 10 }, (_, i) =>
    [
      `p${i + 1}`,
      i % 3 === 1 ? `person${i + 1}.at.example.org` : `p${i + 1}@example.org`,
      `Ann${i}`,
      'Long-Surname-Of-Someone',
    ].join(','),
  ).join('\n') +
  '\n';

/**
 * Cells (td, th) shown on the page that reach past the viewport's right edge or start left of
 * it. Browser code as text: the project's types hold no DOM.
 */
const LOGIN_STYLE = `(() => {
  const css = (selector) => getComputedStyle(document.querySelector(selector));
  return {
    bodyMargin: css('body').marginTop,
    font: css('body').fontFamily,
    header: css('header.top').backgroundColor,
    form: css('form.login').display,
    formBackground: css('form.login').backgroundColor,
  };
})()`;

/** The background of a success's badge, and of the first run's badge. */
const BADGE_COLOURS = `(() => {
  const probe = document.createElement('span');
  probe.className = 'badge s-completed';
  document.body.append(probe);
  const success = getComputedStyle(probe);
  const colours = { success: success.backgroundColor, successText: success.color };
  probe.remove();
  const shown = getComputedStyle(document.querySelector('tr[data-run] .badge[data-status]'));
  return { ...colours, shown: shown.backgroundColor, text: shown.color };
})()`;

// Issue #29, item 5, the morning after: the built CLI runs a job that completes with failed
// rows, the built dashboard shows it in Chromium, on a laptop and at a phone's 390 px.
describe.runIf(chromiumAvailable('the dashboard failure-day browser test'))(
  'the failure day in a browser (built CLI)',
  () => {
    let workspace: CliWorkspace;
    let sandbox: RunningSandbox;
    let dashboard: BuiltDashboard;
    let browser: Browser;
    let page: Page;
    let runId: string;

    beforeAll(async () => {
      workspace = cliWorkspace('evsync-failure-day-');
      sandbox = await workspace.sandbox();
      workspace.write({
        'people.csv': PEOPLE,
        'people.yaml': 'name: people\nsteps:\n  - mapping: users\n    source: { csv: ./people.csv }\n',
      });
      const run = await workspace.run(sandbox, ['run', 'people.yaml']);
      expect(run.code).toBe(1);
      runId = /^Run (\S+) \(people, upsert\): completed/.exec(run.stdout)![1]!;
      dashboard = await startBuiltDashboard({
        cwd: workspace.dir,
        env: { ...workspace.envFor(sandbox), EVSYNC_DASHBOARD_TOKEN: TOKEN },
      });
      browser = await launchChromium();
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        timezoneId: 'Europe/Berlin',
      });
      page = await context.newPage();
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await dashboard?.stop();
      await workspace?.close();
    });

    it('styles the login page: its style sheet answers without a login', async () => {
      const sheet = await fetch(`${dashboard.base}/assets/dashboard.css`);
      expect(sheet.status).toBe(200);
      expect(sheet.headers.get('content-type')).toMatch(/^text\/css/);
      const answers: number[] = [];
      page.on('response', (response) => {
        if (response.url().endsWith('/assets/dashboard.css')) answers.push(response.status());
      });
      await page.goto(`${dashboard.base}/runs`);
      expect(new URL(page.url()).pathname).toBe('/login');
      expect(answers).toEqual([200]);
      const style = await page.evaluate<Record<string, string>>(LOGIN_STYLE);
      // A browser's defaults: 8px margin, a serif font, transparent header, a block form.
      expect(style.bodyMargin).toBe('0px');
      expect(style.font).toContain('system-ui');
      expect(style.header).toBe('rgb(34, 34, 51)');
      expect(style.form).toBe('flex');
      expect(style.formBackground).toBe('rgb(255, 255, 255)');
      await page.screenshot({ path: SHOT('1-login'), fullPage: true });
      await page.fill('input[name=token]', TOKEN);
      await page.click('form.login button');
      await page.waitForURL(`${dashboard.base}/runs`);
    });

    it('opens with the jobs summary, and a run with failed rows wears no success colour', async () => {
      const line = page.locator('#jobs li[data-job=people]');
      expect(await line.locator('[data-outcome]').textContent()).toBe('3 failed');
      const badge = page.locator(`tr[data-run="${runId}"] .badge[data-status]`);
      expect((await badge.textContent())?.trim()).toBe('completed, 3 failed');
      const colours = await page.evaluate<Record<string, string>>(BADGE_COLOURS);
      expect(colours.shown).not.toBe(colours.success);
      expect(colours.text).not.toBe(colours.successText);
      // Times in the browser's zone (Berlin here), UTC on hover.
      const time = page.locator(`tr[data-run="${runId}"] time`);
      expect(await time.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
      expect(await time.textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (GMT\+[12]|CES?T)$/);
      await page.screenshot({ path: SHOT('2-runs'), fullPage: true });
    });

    it('puts the failed rows first, and offers the retry, not a resume, saying why', async () => {
      await page.goto(`${dashboard.base}/runs/${runId}`);
      const rows = await page.locator('table.results tbody tr').all();
      const actions = await Promise.all(rows.map((row) => row.getAttribute('class')));
      expect(actions.slice(0, 3)).toEqual(['a-failed', 'a-failed', 'a-failed']);
      expect(actions.slice(3).every((action) => action !== 'a-failed')).toBe(true);
      expect(await page.locator('#actions').getAttribute('data-primary')).toBe('retry');
      expect(await page.locator('a.button[href$="/resume"]').count()).toBe(0);
      expect(await page.locator('[data-next-step]').textContent()).toContain('3 rows failed');
      await page.waitForSelector('#chart .uplot');
      await page.screenshot({ path: SHOT('3-run'), fullPage: true });
    });

    it('at 390 px, no table cell lies outside the screen: runs, a run, a row', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      for (const [name, path] of [
        ['4-phone-runs', '/runs'],
        ['5-phone-run', `/runs/${runId}`],
        ['6-phone-row', `/runs/${runId}/results/user/p2`],
      ] as const) {
        await page.goto(`${dashboard.base}${path}`);
        if (name === '5-phone-run') await page.waitForSelector('#chart .uplot');
        expect(await page.locator('td').count(), path).toBeGreaterThan(0);
        expect(await page.evaluate<string[]>(TABLE_LAYOUT_PROBLEMS), path).toEqual([]);
        const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
        expect(overflow, path).toBeLessThanOrEqual(0);
        await page.screenshot({ path: SHOT(name), fullPage: true });
        // The first screens of a long page, at a size a person can read.
        await page.screenshot({
          path: SHOT(`${name}-top`),
          fullPage: true,
          clip: { x: 0, y: 0, width: 390, height: 1600 },
        });
      }
    });
  },
);
