import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { DistributedConfig } from '../distributed/distributed-config.js';
import type { RunPhaseNote } from '../distributed/distributed-executor.js';
import type { QueueStatus } from '../distributed/queue-status.js';
import type { ScheduleInfo } from '../distributed/schedules.js';
import { openQueueStatusReader } from '../distributed/queue-status-reader.js';
import type { IntentQueue } from '../distributed/intent-queue.js';
import type { Ledger } from '../ledger/ledger.js';
import { CODE } from '../errors/codes.js';
import { messageOf } from '../errors/evsync-error.js';
import { isRedisUnavailable, QueueConnectionError } from '../sync/queue/redis-connection.js';

/** Distributed mode on the dashboard: what `evsync status` shows, and Bull Board. */
export interface QueuePanel {
  status(): Promise<QueueStatus>;
  /** The phase a distributed run is in, as its `evsync run` notes it for `evsync status`. */
  phaseOf: (runId: string) => Promise<RunPhaseNote | undefined>;
  /** The schedules registered now. */
  schedules(): Promise<ScheduleInfo[]>;
  /** Whether Redis answers (`/readyz`). */
  ping(): Promise<unknown>;
  /**
   * The queues' counts by state in Prometheus text, BullMQ's own export of each queue as it
   * comes, families repeated: for `metricsText`, which merges them (`/metrics`).
   */
  exportMetrics(): Promise<string>;
  /** Bull Board, to mount at `/queues` behind the dashboard's login. */
  bullBoard: Hono;
  close(): Promise<void>;
}

export interface QueuePanelOptions {
  /**
   * Bull Board's job actions (retry, clean, pause, add…): off, the board is read-only, as
   * jobs are the engine's to retry or remove, through runs. `--queue-actions` turns them on.
   * @defaultValue false
   */
  actions?: boolean;
}

export async function openQueuePanel(
  config: DistributedConfig,
  ledger: Ledger,
  options: QueuePanelOptions = {},
): Promise<QueuePanel> {
  const reader = await openQueueStatusReader(config, ledger);
  const board = new HonoAdapter(serveStatic).setBasePath('/queues');
  const readOnly = options.actions !== true;
  const shown = new Set<string>();
  const adapterOf = (queue: IntentQueue): BullMQAdapter => {
    shown.add(queue.name);
    return new BullMQAdapter(queue.queue, { readOnlyMode: readOnly });
  };
  const initial = [reader.queue, ...(await reader.laneQueues())];
  const bull = createBullBoard({
    queues: initial.map(adapterOf),
    serverAdapter: board,
    // Bull Board is a page of its own: its header's links lead back to evsync's pages.
    options: {
      uiConfig: {
        boardTitle: 'evsync queue',
        miscLinks: [
          { text: '← evsync runs', url: '/runs' },
          { text: 'evsync queue page', url: '/queue' },
        ],
      },
    },
  });
  // A lane opened since: shown on the board too.
  const showNewLanes = async (): Promise<void> => {
    for (const lane of await reader.laneQueues()) if (!shown.has(lane.name)) bull.addQueue(adapterOf(lane));
  };
  return {
    status: async () => {
      try {
        await showNewLanes();
        return await reader.read();
      } catch (error) {
        if (!isRedisUnavailable(error)) throw error;
        // The ledger's pages still answer: only the queue's state is out of reach.
        throw new QueueConnectionError(
          `Redis at ${config.description} is not answering (${messageOf(error)}), so the queue cannot be shown. ` +
            'Runs and their results (the ledger) still can. Start Redis or fix REDIS_URL; a run it stopped ' +
            'is finished with `evsync resume RUN` once it answers.',
          { code: CODE.EVSYNC_QUEUE_UNREACHABLE, retryable: true, cause: error },
        );
      }
    },
    phaseOf: async (runId) => (await reader.queue.phaseNotes()).get(runId),
    schedules: () => reader.schedules.list(),
    ping: () => reader.ping(),
    exportMetrics: async () => {
      const queues = [reader.queue, ...(await reader.laneQueues())];
      const texts = await Promise.all(queues.map((queue) => queue.queue.exportPrometheusMetrics()));
      texts.push(await reader.schedules.exportPrometheusMetrics());
      // As the queues wrote them: the page's `metricsText` merges every part once.
      return texts.join('\n');
    },
    bullBoard: withoutThirdParties(board.registerPlugin(), readOnly),
    close: () => reader.close(),
  };
}

/**
 * Bull Board as the dashboard serves it: its page without the stylesheet it links from
 * Google Fonts (the dashboard's CSP forbids other hosts anyway: this spares the browser
 * the blocked request; the page falls back to the system's sans-serif), and, read-only,
 * nothing but reads, whatever its own routes would take.
 */
function withoutThirdParties(plugin: Hono, readOnly: boolean): Hono {
  const app = new Hono();
  app.use('*', async (c, next) => {
    if (readOnly && c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      return c.json(
        { error: { code: null, message: 'The queue board is read-only (see --queue-actions).' } },
        405,
      );
    }
    await next();
    if (!c.res.headers.get('content-type')?.startsWith('text/html')) return;
    const text = await c.res.text();
    c.res = new Response(text.replace(OTHER_HOST_LINK, ''), c.res);
  });
  app.route('/', plugin);
  return app;
}

/** A `<link>` (stylesheet, font, preconnect) to another host: `https://…` or `//…`. */
const OTHER_HOST_LINK = /<link\b[^>]*\bhref=["']?(?:https?:)?\/\/[^>]*>/gi;
