import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, vi } from 'vitest';
import { createDashboardApp } from '../../../src/dashboard/dashboard-app.js';
import { LiveRuns } from '../../../src/dashboard/live-progress.js';
import { RunActions } from '../../../src/dashboard/run-actions.js';
import type { Ledger } from '../../../src/ledger/ledger.js';
import { openLedger } from '../../../src/ledger/open-ledger.js';
import { createLogger } from '../../../src/log/logger.js';
import { applySeed } from '../../../src/sandbox/sandbox-seed.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import { stubCliEnv } from '../../e2e/cli-in-process.js';
import { EVENT_MAPPING } from '../../e2e/conference-fixture.js';
import { jobYaml } from '../../e2e/sync-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { PASSWORD_USERS_MAPPING } from '../../helpers/users-csv.js';
import { removeWorkspace } from '../../helpers/remove-workspace.js';

export const TOKEN = 'dashboard-test-token';
export const XSS = '<img src=x onerror=alert(1)>';
export const PASSWORD = 'Secret-pass-1';
export const JSON_ACCEPT = { accept: 'application/json' };
const EVENT = '2026-06-01T09:00:00Z,2026-06-01T10:00:00Z,Track 1';

/**
 * One run with something of everything, as `evsync run` makes it against a sandbox: users
 * (one with a name a browser would run as HTML, one with a password), events whose
 * client_ids a spreadsheet would run as formulas, three events the platform refuses
 * (their sponsor does not exist yet: `acceptFailed` seeds it), a row the mapping refuses.
 * The tests' run has 7 results, 4 of them failed: dubad (the mapping) and de1, de2, de3.
 */
function files(failingEvents: number): Record<string, string> {
  return {
    'users.csv': [
      'client_id,email,first_name,last_name,password',
      `du1,du1@example.org,Ann,One,${PASSWORD}`,
      `du2,du2@example.org,"${XSS}",Two,`,
      'dubad,nope,Cy,Three,',
      '',
    ].join('\n'),
    'events.csv': [
      'client_id,name,description,start,finish,track,sponsor',
      `=1+2,Formula,About,${EVENT},`,
      ...Array.from(
        { length: failingEvents - 1 },
        (_, i) => `de${i + 1},Sponsored ${i + 1},About,${EVENT},sp-d`,
      ),
      `de${failingEvents},"${XSS}",About,${EVENT},sp-d`,
      '',
    ].join('\n'),
    'users-map.yaml': PASSWORD_USERS_MAPPING,
    'events-map.yaml': EVENT_MAPPING,
    'job.yaml': jobYaml(
      'dash',
      [
        '  - { mapping: ./users-map.yaml, source: { csv: ./users.csv } }',
        '  - { mapping: ./events-map.yaml, source: { csv: ./events.csv } }',
        '',
      ].join('\n'),
    ),
  };
}

export interface DashboardFixture {
  dir: string;
  sandbox: RunningSandbox;
  ledger: Ledger;
  runId: string;
  app: ReturnType<typeof createDashboardApp>;
  actions: RunActions;
  /** The sandbox accepts the failed events from now on. */
  acceptFailed(): void;
  /** `app.request` with the Bearer token unless `bearer: false`. */
  request(path: string, init?: RequestInit & { bearer?: boolean }): Promise<Response>;
  close(): Promise<void>;
}

/** @param failingEvents events the platform refuses until `acceptFailed`, the last one named in HTML */
export async function dashboardFixture(failingEvents = 3): Promise<DashboardFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'evsync-dashboard-'));
  const sandbox = await startSandbox();
  stubCliEnv(sandbox, join(dir, 'data'));
  for (const [name, text] of Object.entries(files(failingEvents))) writeFileSync(join(dir, name), text);
  const run = await runCli('run', join(dir, 'job.yaml'));
  const runId = /^Run (\S+) /.exec(run.stdout)?.[1];
  if (runId === undefined) throw new Error(`the run did not start: ${run.stdout}${run.stderr}`);
  const ledger = await openLedger({ dataDir: join(dir, 'data'), databaseUrl: '' });
  const logger = createLogger({ level: 'silent' });
  const live = new LiveRuns();
  const actions = new RunActions({ ledger, logger, live });
  const app = createDashboardApp({ ledger, token: TOKEN, logger, actions, live, eventsIntervalMs: 100 });
  return {
    dir,
    sandbox,
    ledger,
    runId,
    app,
    actions,
    acceptFailed: () =>
      applySeed(sandbox.state, { exhibitors: [{ name: 'Sponsor D', client_ids: ['sp-d'] }] }),
    request: async (path, init = {}) => {
      const { bearer = true, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (bearer && !headers.has('authorization')) headers.set('authorization', `Bearer ${TOKEN}`);
      return app.request(path, { ...rest, headers });
    },
    close: async () => {
      await actions.close();
      await ledger.close();
      await sandbox.close();
      vi.unstubAllEnvs();
      await removeWorkspace(dir);
    },
  };
}

/** Waits until the run is no longer running (a background action's run). */
export async function untilFinished(ledger: Ledger, runId: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const run = await ledger.getRun(runId);
    if (run && run.status !== 'running') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${runId} still running after ${timeoutMs} ms`);
}

/** A fixture for the test file: made before its tests, closed after them. */
export function useDashboardFixture(failingEvents?: number): () => DashboardFixture {
  let fixture: DashboardFixture | undefined;
  beforeAll(async () => {
    fixture = await dashboardFixture(failingEvents);
  }, 60_000);
  afterAll(async () => {
    await fixture?.close();
  });
  return () => {
    if (!fixture) throw new Error('the dashboard fixture is not ready (its beforeAll failed?)');
    return fixture;
  };
}
