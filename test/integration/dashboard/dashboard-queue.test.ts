import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { createDashboardApp } from '../../../src/dashboard/dashboard-app.js';
import { IntentQueue } from '../../../src/distributed/intent-queue.js';
import { LiveRuns } from '../../../src/dashboard/live-progress.js';
import { openQueuePanel, type QueuePanel } from '../../../src/dashboard/queue-panel.js';
import { RunActions } from '../../../src/dashboard/run-actions.js';
import type { Ledger } from '../../../src/ledger/ledger.js';
import { openLedger } from '../../../src/ledger/open-ledger.js';
import { createLogger } from '../../../src/log/logger.js';
import { SERVICES, serviceAvailable } from '../../helpers/services.js';
import { removeWorkspace } from '../../helpers/remove-workspace.js';

const available = await serviceAvailable('redis');
const TOKEN = 'queue-test-token';

// Distributed mode on the dashboard: what `evsync status` shows, and Bull Board under
// /queues behind the same login. A Redis prefix of this file's own; no workers.
describe.skipIf(!available)('dashboard queue view', () => {
  let dir: string;
  let ledger: Ledger;
  let queue: QueuePanel;
  let app: ReturnType<typeof createDashboardApp>;
  const prefix = `evsync-dash-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evsync-dashboard-queue-'));
    vi.stubEnv('EVSYNC_BASE_URL', 'http://127.0.0.1:9');
    vi.stubEnv('EVSYNC_KEY_ID', '1');
    vi.stubEnv('EVSYNC_SIGNING_KEY', 'queue-test-signing-key');
    ledger = await openLedger({ dataDir: join(dir, 'data'), databaseUrl: '' });
    queue = await openQueuePanel(
      { redisUrl: SERVICES.redis.url, prefix, description: SERVICES.redis.url },
      ledger,
    );
    const logger = createLogger({ level: 'silent' });
    const live = new LiveRuns();
    app = createDashboardApp({
      ledger,
      token: TOKEN,
      logger,
      actions: new RunActions({ ledger, logger, live }),
      live,
      queue,
    });
  });
  afterAll(async () => {
    await queue?.close();
    await ledger?.close();
    vi.unstubAllEnvs();
    await removeWorkspace(dir);
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    app.request(path, { headers: { authorization: `Bearer ${TOKEN}`, ...headers } });

  it('shows queue depth, workers, the rate in force and the schedules', async () => {
    const status = (await (await get('/queue', { accept: 'application/json' })).json()) as Record<
      string,
      unknown
    >;
    expect(status).toMatchObject({ prefix, workers: [], schedules: [], jobs: { waiting: 0, active: 0 } });
    const html = await (await get('/queue')).text();
    expect(html).toContain('none connected');
    expect(html).toContain('href="/queues"');
  });

  it('mounts Bull Board under /queues, read-only, behind the login', async () => {
    const page = await get('/queues');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<base href="/queues/"');
    const api = (await (await get('/queues/api/queues')).json()) as {
      queues: Array<{ name: string; readOnlyMode: boolean }>;
    };
    expect(api.queues.map((q) => [q.name, q.readOnlyMode])).toEqual([['intents', true]]);
    expect((await app.request('/queues')).status).toBe(303);
    expect(
      (await app.request('/queues/api/queues', { headers: { accept: 'application/json' } })).status,
    ).toBe(401);
    const secrets = JSON.stringify(await (await get('/queue', { accept: 'application/json' })).json());
    expect(secrets).not.toContain('queue-test-signing-key');
  });

  it('serves Bull Board with the dashboard headers, no third-party fonts, and refuses its actions', async () => {
    for (const path of ['/queues', '/queues/api/queues']) {
      const answer = await get(path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('content-security-policy'), path).toMatch(
        /default-src 'self'.*frame-ancestors 'none'/,
      );
      expect(answer.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(answer.headers.get('cache-control'), path).toBe('no-store');
      expect(answer.headers.get('referrer-policy'), path).toBe('no-referrer');
    }
    const html = await (await get('/queues')).text();
    expect(html).not.toMatch(/fonts\.googleapis|fonts\.gstatic/);
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
    // Read-only: no action reaches a queue, whatever Bull Board's own routes would take.
    for (const path of ['/queues/api/queues/intents/pause', '/queues/api/queues/pause']) {
      const put = await app.request(path, {
        method: 'PUT',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(put.status, path).toBe(405);
    }
    const after = (await (await get('/queues/api/queues')).json()) as {
      queues: Array<{ isPaused: boolean }>;
    };
    expect(after.queues.map((q) => q.isPaused)).toEqual([false]);
  });

  it('lets Bull Board act only when the operator enables queue actions', async () => {
    const acting = await openQueuePanel(
      { redisUrl: SERVICES.redis.url, prefix, description: SERVICES.redis.url },
      ledger,
      { actions: true },
    );
    try {
      const api = (await (await acting.bullBoard.request('/api/queues')).json()) as {
        queues: Array<{ readOnlyMode: boolean }>;
      };
      expect(api.queues.map((q) => q.readOnlyMode)).toEqual([false]);
    } finally {
      await acting.close();
    }
  });

  it("follows a distributed run's phase from the note its `evsync run` keeps in Redis", async () => {
    const run = await ledger.createRun({ jobName: 'noted', mode: 'upsert', options: { planned: 40 } });
    // What the coordinator holds while it runs (without it, the run's process is gone).
    const release = await ledger.claimRun(run.id);
    const redis = new Redis(SERVICES.redis.url);
    const notes = new IntentQueue(redis, prefix);
    try {
      await notes.notePhase(run.id, {
        phase: 'users',
        total: 40,
        done: 12,
        startedAt: new Date().toISOString(),
      });
      const response = await get(`/runs/${run.id}/events`);
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      while (!/^data: .+$/m.test(text)) text += (await reader.read()).value ?? '';
      await reader.cancel();
      const event = JSON.parse(/^data: (.+)$/m.exec(text)![1]!) as Record<string, unknown>;
      expect(event).toMatchObject({
        status: 'running',
        planned: 40,
        phases: [{ phase: 'users', total: 40, done: 12 }],
      });
    } finally {
      await release();
      await ledger.finishRun(run.id, 'interrupted');
      await notes.close();
      redis.disconnect();
    }
  });

  it('a running run that no process holds any more ends its events as cut off', async () => {
    const run = await ledger.createRun({ jobName: 'orphan', mode: 'upsert', options: {} });
    try {
      const response = await get(`/runs/${run.id}/events`);
      const text = await response.text();
      expect(text).toMatch(/^event: end$/m);
      expect(JSON.parse(/^data: (.+)$/m.exec(text)![1]!)).toMatchObject({ status: 'cut off' });
      const page = await (await get(`/runs/${run.id}`)).text();
      expect(page).toContain('<span class="badge s-cut-off" data-status>cut off</span>');
      expect(page).toContain('Its process ended before the run did');
    } finally {
      await ledger.finishRun(run.id, 'interrupted');
    }
  });
});
