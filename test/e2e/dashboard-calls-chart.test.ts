import type { Browser } from 'playwright-core';
import { chromiumAvailable, launchChromium } from '../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import {
  cliWorkspace,
  startBuiltDashboard,
  type BuiltDashboard,
  type CliWorkspace,
} from '../helpers/built-cli.js';

const TOKEN = 'calls-chart-token-0123456789abcdef';
const HEADER = 'client_id,email,first_name,last_name\n';
const PEOPLE =
  HEADER +
  Array.from({ length: 80 }, (_, i) => `c${i + 1},c${i + 1}@example.org,Ann,Chart${i + 1}`).join('\n') +
  '\n';

// Issue #29 item 5, the chart of the failure day: a run against a platform answering 503s
// and limiting to 10/s while the job asks 40/s, through the built CLI; its page in Chromium
// charts platform calls per second with a series for 429 and one for 5xx, and marks pauses.
describe.runIf(chromiumAvailable('the calls chart browser test'))(
  'the run page charts calls by outcome (built CLI)',
  () => {
    let workspace: CliWorkspace;
    let sandbox: RunningSandbox;
    let dashboard: BuiltDashboard;
    let browser: Browser;
    let runId: string;

    beforeAll(async () => {
      workspace = cliWorkspace('evsync-calls-chart-');
      sandbox = await workspace.sandbox({
        faults: { error503: { fraction: 0.1 }, seed: 29 },
        rateLimit: { perSecond: 10, burst: 2 },
      });
      workspace.write({
        'people.csv': PEOPLE,
        'people.yaml':
          'name: chart\nrate: { per_second: 40, concurrency: 8 }\nsteps:\n  - mapping: users\n    source: { csv: ./people.csv }\n',
      });
      const run = await workspace.run(sandbox, ['run', 'people.yaml']);
      runId = /^Run (\S+) \(chart, upsert\)/m.exec(run.stdout)![1]!;
      dashboard = await startBuiltDashboard({
        cwd: workspace.dir,
        env: { ...workspace.envFor(sandbox), EVSYNC_DASHBOARD_TOKEN: TOKEN },
      });
      browser = await launchChromium();
    }, 180_000);
    afterAll(async () => {
      await browser?.close();
      await dashboard?.stop();
      await workspace?.close();
    });

    it('has series for 429 and 5xx, and marks the 429 pauses', async () => {
      const timeline = (await (
        await fetch(`${dashboard.base}/runs/${runId}/timeline`, {
          headers: { accept: 'application/json', authorization: `Bearer ${TOKEN}` },
        })
      ).json()) as {
        calls?: { points: Array<{ calls: Record<string, number> }>; marks: Array<{ kind: string }> };
      };
      const total = (outcome: string) =>
        timeline.calls!.points.reduce((sum, point) => sum + (point.calls[outcome] ?? 0), 0);
      expect(total('2xx')).toBeGreaterThanOrEqual(80);
      expect(total('429')).toBeGreaterThan(0);
      expect(total('5xx')).toBeGreaterThan(0);
      expect(timeline.calls!.marks.map((m) => m.kind)).toContain('pause');

      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${dashboard.base}/login?token=${TOKEN}&next=/runs/${runId}`);
      await page.waitForSelector('#chart .u-legend');
      const labels = await page.locator('#chart .u-legend .u-series .u-label').allTextContents();
      expect(labels).toEqual(expect.arrayContaining(['2xx/s', '429/s', '5xx/s']));
      expect(await page.locator('#chart .chart-marks').textContent()).toContain('429 pause at');
      expect(await page.locator('.chart-box h2').textContent()).toBe('Platform calls over the run');
      await page.locator('.chart-box').screenshot({ path: '/tmp/dash29-chart.png' });
    }, 120_000);
  },
);
