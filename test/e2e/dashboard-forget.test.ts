import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntentQueue, intentJobId } from '../../src/distributed/intent-queue.js';
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
import { postgresSchema, serviceAvailable, SERVICES } from '../helpers/services.js';

/**
 * Issue #42 point 4: "Forget this person…" on a user row's page of the dashboard, and the
 * erasures page, through the built CLI's dashboard in Chromium, on both ledgers. The demo's
 * att-0008 is a speaker with a schedule: the platform removes those with the user.
 */
const JOBS = resolve(import.meta.dirname, '../../jobs');
const SHOTS = join(process.cwd(), 'test-output', 'dashboard-forget');
const TOKEN = 'forget-test-token-0123456789abcdef';
const PERSON = { email: 'edsger.shaw8@example.org', clientId: 'att-0008', first: 'Edsger', last: 'Shaw' };
/** What of the person no page may show once they are forgotten. */
const NEEDLES = [PERSON.email, PERSON.clientId, `${PERSON.first} ${PERSON.last}`];

const postgresReady = await serviceAvailable('postgres');
const redisReady = await serviceAvailable('redis');
const chromiumReady = chromiumAvailable('the dashboard forget test');

const SETUPS = [
  { ledger: 'embedded', ready: true },
  { ledger: 'postgres', ready: postgresReady },
  // Distributed mode's dashboard: its forget also empties the queue of the person's jobs.
  // The runs stay in one process (no workers needed), on the same PostgreSQL ledger.
  { ledger: 'distributed', ready: postgresReady && redisReady },
] as const;

for (const { ledger, ready } of SETUPS) {
  describe.runIf(chromiumReady && ready)(`"Forget this person" in the dashboard, ${ledger} ledger`, () => {
    let workspace: CliWorkspace;
    let sandbox: RunningSandbox;
    let dashboard: BuiltDashboard;
    let browser: Browser;
    let page: Page;
    let database: Awaited<ReturnType<typeof postgresSchema>> | undefined;
    let env: NodeJS.ProcessEnv = {};
    let runId: string;
    const prefix = `evsync-test-dash-forget-${randomBytes(4).toString('hex')}`;
    const redis = ledger === 'distributed' && ready ? new Redis(SERVICES.redis.url) : undefined;
    const rowUrl = (): string => `${dashboard.base}/runs/${runId}/results/user/${PERSON.clientId}`;
    const inConference = (): boolean => sandbox.state.userByEmail(PERSON.email)?.inConference === true;
    const shot = (name: string): Promise<Buffer> =>
      page.screenshot({ path: join(SHOTS, `${ledger}-${name}.png`), fullPage: true });

    beforeAll(async () => {
      mkdirSync(SHOTS, { recursive: true });
      workspace = cliWorkspace(`evsync-dash-forget-${ledger}-`);
      cpSync(JOBS, workspace.dir, { recursive: true });
      sandbox = await workspace.sandbox({
        seed: resolve(workspace.dir, 'demo-data', 'sandbox-seed.yaml'),
      });
      if (ledger !== 'embedded') {
        database = await postgresSchema('evsync_dash_forget');
        env = database.env;
      }
      const run = await workspace.run(sandbox, ['run', 'demo.yaml'], env);
      runId = /Run (\S+) \(demo/.exec(run.stdout)![1]!;
      dashboard = await startBuiltDashboard({
        cwd: workspace.dir,
        env: {
          ...workspace.envFor(sandbox),
          ...env,
          ...(redis ? { REDIS_URL: SERVICES.redis.url, EVSYNC_QUEUE_PREFIX: prefix } : {}),
          EVSYNC_DASHBOARD_TOKEN: TOKEN,
        },
      });
      browser = await launchChromium();
      page = await signedInPage(browser, dashboard.base, TOKEN, { width: 1280, height: 800 });
      // The button asks "are you sure?" as the other actions' buttons do.
      page.on('dialog', (dialog) => void dialog.accept());
    }, 240_000);

    afterAll(async () => {
      await browser?.close();
      await dashboard?.stop();
      await workspace?.close();
      await database?.drop();
      if (redis) {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(...keys);
        redis.disconnect();
      }
    });

    /** The intents queue's jobs, by kind and key. */
    const queuedKeys = async (queue: IntentQueue): Promise<string[]> =>
      (await queue.queue.getJobs(['completed', 'waiting'])).map((job) => `${job.data.kind} ${job.data.key}`);

    it('the confirmation page names what will be removed, and removes nothing', async () => {
      const user = sandbox.state.userByEmail(PERSON.email)!;
      expect(user.inConference).toBe(true);
      await page.goto(rowUrl());
      await page.click('text=Forget this person…');
      await page.waitForURL(/\/forget\?client_id=att-0008$/);
      await shot('confirm');
      const text = (await page.locator('main').textContent()) ?? '';
      expect(text).toContain(`The platform user ${user.id}, removed from the conference`);
      expect(text).toMatch(/[1-9]\d* result row\(s\) replaced with markers/);
      expect(text).toMatch(/[1-9]\d* synced key\(s\) dropped/);
      expect(await page.locator('form.forget input[name=_csrf]').count()).toBe(1);
      expect(inConference()).toBe(true);
      expect(await page.goto(rowUrl()).then((r) => r?.status())).toBe(200);
    }, 60_000);

    it('a POST without, or with a wrong, CSRF token is refused and changes nothing', async () => {
      const url = `${dashboard.base}/runs/${runId}/forget`;
      // Through the browser's own session cookie, as another site's page would try it.
      const forms: Array<Record<string, string>> = [
        { client_id: PERSON.clientId },
        { client_id: PERSON.clientId, _csrf: 'not-the-session-token' },
      ];
      for (const form of forms) {
        const answer = await page.request.post(url, { form, maxRedirects: 0 });
        expect(answer.status()).toBe(403);
        expect(await answer.json()).toMatchObject({ error: { code: 'EVSYNC_DASHBOARD_CSRF' } });
      }
      // Without a session at all: the login is asked for.
      const anonymous = await browser.newContext();
      const refused = await anonymous.request.post(url, {
        form: { client_id: PERSON.clientId },
        maxRedirects: 0,
      });
      expect(refused.status()).toBe(401);
      await anonymous.close();
      expect(inConference()).toBe(true);
      const list = await page.request.get(`${dashboard.base}/erasures`, {
        headers: { accept: 'application/json' },
      });
      expect(await list.json()).toEqual({ tombstones: [] });
      expect(await page.goto(rowUrl()).then((r) => r?.status())).toBe(200);
    }, 60_000);

    it('forgets the person through the page: gone from the sandbox and every page; the list shows the tombstone', async () => {
      const user = sandbox.state.userByEmail(PERSON.email)!;
      // Distributed mode: jobs of a run naming the person, and one naming someone else.
      const queue = redis ? new IntentQueue(redis, prefix) : undefined;
      if (queue) {
        const job = (kind: 'user' | 'schedule', key: string) => ({
          runId,
          epoch: 'e1',
          phase: kind === 'user' ? ('users' as const) : ('links' as const),
          kind,
          key,
        });
        const jobs = [
          job('user', PERSON.clientId),
          job('schedule', PERSON.clientId),
          job('user', 'att-0009'),
        ];
        await queue.queue.addBulk(
          jobs.map((data) => ({ name: 'intent', data, opts: { jobId: intentJobId(data) } })),
        );
      }
      await page.goto(`${rowUrl().replace(/\/results\/user\/.*$/, '')}/forget?client_id=${PERSON.clientId}`);
      await page.fill('form.forget input[name=reason]', 'request 2026-114');
      await page.click('form.forget button');
      await page.waitForURL(/\/erasures\/\d+\?/);
      await shot('done');
      const done = await page.content();
      expect(done).toContain('request 2026-114');
      expect(done).toContain('1 platform user(s) removed from the conference');
      for (const needle of NEEDLES) expect(done).not.toContain(needle);
      expect(inConference()).toBe(false);
      expect(sandbox.state.scheduleOf(user.id)).toEqual([]);
      if (queue) {
        expect(done).toContain('Redis: removed 2 queued or finished job(s) naming them.');
        expect(await queuedKeys(queue)).toEqual(['user att-0009']);
        await queue.close();
      }

      // The row as it is now: a marker, no params, nothing of the person.
      await page.click('text=The row now');
      await page.waitForURL(/\/results\/user\/erased%3A[0-9a-f]{16}$/);
      await shot('row-after');
      const row = await page.content();
      expect(row).toContain('This row names a person who was forgotten');
      for (const needle of NEEDLES) expect(row).not.toContain(needle);
      expect(await page.locator('text=Forget this person…').count()).toBe(0);
      // The old address has no row any more, and says why without quoting the key back.
      expect(await page.goto(rowUrl()).then((r) => r?.status())).toBe(404);
      expect(await page.locator('main').textContent()).toContain('its person was forgotten');
      for (const needle of NEEDLES) expect(await page.locator('main').innerHTML()).not.toContain(needle);
      // Nor do the run's results, searched by their e-mail or client_id, find them.
      for (const search of [PERSON.email, PERSON.clientId]) {
        await page.goto(`${dashboard.base}/runs/${runId}/results?q=${encodeURIComponent(search)}`);
        expect(await page.locator('#results').textContent()).toContain('No results match.');
      }

      // The erasures page, from the navigation: date, reason, conference, who; no one named.
      await page.goto(`${dashboard.base}/runs`);
      await page.click('header.top nav >> text=Erasures');
      await page.waitForURL(`${dashboard.base}/erasures`);
      await shot('erasures');
      const rows = page.locator('table.erasures tbody tr');
      expect(await rows.count()).toBe(1);
      const cells = await rows.first().locator('td').allTextContents();
      expect(cells[2]).toContain(new URL(sandbox.url).host);
      expect(cells[3]).toBe('request 2026-114');
      expect(cells[4]).toMatch(/@.+ \(dashboard\)$/);
      expect(cells[6]?.trim()).toBe('in force');
      const html = await page.content();
      for (const needle of NEEDLES) expect(html).not.toContain(needle);
      // On a phone too, as every page of the dashboard (issue #40).
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.evaluate<string[]>(TABLE_LAYOUT_PROBLEMS)).toEqual([]);
      await shot('erasures-phone');
      await page.setViewportSize({ width: 1280, height: 800 });
    }, 120_000);

    it('the next run suppresses the person', async () => {
      const again = await workspace.run(sandbox, ['run', 'demo.yaml'], env);
      expect(again.code, again.stderr).toBe(1); // the demo's deliberately bad rows
      expect(again.stdout).toMatch(/Suppressed: \d+ rows name a person erased in this conference/);
      expect(inConference()).toBe(false);
    }, 120_000);
  });
}
