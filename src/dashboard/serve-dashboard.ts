import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { distributedConfigFromEnv } from '../distributed/distributed-config.js';
import type { Ledger } from '../ledger/ledger.js';
import { watchNotices } from '../sync/notify/notice-watch.js';
import { metricsText, readiness } from '../sync/runs/run-metrics.js';
import type { Logger } from '../log/logger.js';
import type { PlatformClient } from '../platform/platform-client.js';
import { createDashboardApp, type DashboardAppOptions } from './dashboard-app.js';
import { LiveRuns } from './live-progress.js';
import { openQueuePanel, type QueuePanel } from './queue-panel.js';
import { PersonForget } from './person-forget.js';
import { RunActions } from './run-actions.js';

export interface ServeDashboardOptions {
  ledger: Ledger;
  logger: Logger;
  /** @defaultValue 127.0.0.1: only this machine, unless `--host` says otherwise */
  host?: string;
  /** 0 picks a free port. @defaultValue 4680 */
  port?: number;
  /** @defaultValue EVSYNC_DASHBOARD_TOKEN, else one made now and printed once in the login URL */
  token?: string;
  /** A client instead of one from `EVSYNC_*` (tests against a sandbox). */
  client?: PlatformClient;
  /** Between two live events. @defaultValue 1000 */
  eventsIntervalMs?: number;
  /**
   * Bull Board's job actions in distributed mode (`--queue-actions`,
   * `EVSYNC_DASHBOARD_QUEUE_ACTIONS=1`). @defaultValue false: read-only
   */
  queueActions?: boolean;
  /** Where the generated login URL is printed. @defaultValue standard output */
  print?: (line: string) => void;
}

export interface RunningDashboard {
  url: string;
  /** The token in force (tests log in with it). */
  token: string;
  /** Stops the server, lets actions in progress stop, closes Redis (not the ledger). */
  close(): Promise<void>;
}

export const DEFAULT_DASHBOARD_PORT = 4680;

export async function serveDashboard(options: ServeDashboardOptions): Promise<RunningDashboard> {
  const host = options.host ?? '127.0.0.1';
  const fromEnv = process.env.EVSYNC_DASHBOARD_TOKEN;
  const token = options.token ?? (fromEnv ? fromEnv : randomBytes(24).toString('base64url'));
  const live = new LiveRuns();
  const actions = new RunActions({
    ledger: options.ledger,
    logger: options.logger,
    live,
    ...(options.client ? { client: options.client } : {}),
  });
  const config = options.client ? undefined : distributedConfigFromEnv();
  let queue: QueuePanel | undefined;
  const queueActions = options.queueActions ?? process.env.EVSYNC_DASHBOARD_QUEUE_ACTIONS === '1';
  if (config) queue = await openQueuePanel(config, options.ledger, { actions: queueActions });
  const app = createDashboardApp({
    ledger: options.ledger,
    token,
    logger: options.logger,
    actions,
    live,
    queue,
    forget: new PersonForget({
      ledger: options.ledger,
      logger: options.logger,
      ...(options.client ? { client: options.client } : {}),
    }),
    ...(options.eventsIntervalMs ? { eventsIntervalMs: options.eventsIntervalMs } : {}),
    health: healthOf(options.ledger, queue),
  });
  // Runs cut off and schedules missed are told by whichever dashboard or worker looks first.
  const watch = watchNotices({
    ledger: options.ledger,
    logger: options.logger,
    ...(queue ? { schedules: () => queue.schedules() } : {}),
  });
  const server = await new Promise<ServerType>((resolve) => {
    const started = serve(
      { fetch: app.fetch, hostname: host, port: options.port ?? DEFAULT_DASHBOARD_PORT },
      () => resolve(started),
    );
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${shownHost}:${port}`;
  options.logger.info(
    { url, ledger: options.ledger.description, distributed: Boolean(config) },
    'dashboard listening',
  );
  if (!isLoopback(host)) {
    options.logger.warn(
      { host },
      'the dashboard listens beyond this machine, over plain HTTP, behind its token alone: put a TLS proxy in front',
    );
  }
  // The one place the token is ever shown, and only a token this process made.
  if (!options.token && !fromEnv) {
    (options.print ?? ((line) => process.stdout.write(`${line}\n`)))(
      `evsync dashboard: open ${url}/login?token=${token}`,
    );
  }
  return {
    url,
    token,
    close: async () => {
      // Live event streams stay open: close them with the server's connections.
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      if ('closeAllConnections' in server) server.closeAllConnections();
      await closing;
      await actions.close();
      await watch.stop();
      await queue?.close();
    },
  };
}

/** `/readyz` asks the ledger, and Redis in distributed mode; `/metrics` adds the queues' counts. */
function healthOf(ledger: Ledger, queue: QueuePanel | undefined): DashboardAppOptions['health'] {
  return {
    ready: () =>
      readiness({
        ledger: () => ledger.ledgerId(),
        ...(queue ? { redis: () => queue.ping() } : {}),
      }),
    metrics: () => metricsText(ledger, queue ? [() => queue.exportMetrics()] : []),
  };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
