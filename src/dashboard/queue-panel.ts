import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Hono } from 'hono';
import { platformConfigFromEnv } from '../config/env-config.js';
import type { DistributedConfig } from '../distributed/distributed-config.js';
import { IntentQueue } from '../distributed/intent-queue.js';
import { connectRedis, platformBucket } from '../distributed/open-distributed.js';
import { queueStatus, type QueueStatus } from '../distributed/queue-status.js';
import { Schedules } from '../distributed/schedules.js';
import type { Ledger } from '../ledger/ledger.js';

/** Distributed mode on the dashboard: what `evsync status` shows, and Bull Board. */
export interface QueuePanel {
  status(): Promise<QueueStatus>;
  /** Bull Board, to mount at `/queues` behind the dashboard's login. */
  bullBoard: Hono;
  close(): Promise<void>;
}

export async function openQueuePanel(config: DistributedConfig, ledger: Ledger): Promise<QueuePanel> {
  const platform = platformConfigFromEnv();
  const redis = await connectRedis(config, 'client');
  const queue = new IntentQueue(redis, config.prefix);
  const schedules = new Schedules(redis, config.prefix);
  const board = new HonoAdapter(serveStatic).setBasePath('/queues');
  // Read-only: jobs are the engine's to retry or remove, through runs (docs/dashboard.md).
  createBullBoard({ queues: [new BullMQAdapter(queue.queue, { readOnlyMode: true })], serverAdapter: board });
  return {
    status: () =>
      queueStatus({
        config,
        redis,
        queue,
        schedules,
        ledger,
        bucket: platformBucket(config.prefix, platform),
      }),
    bullBoard: board.registerPlugin(),
    close: async () => {
      await Promise.all([queue.close(), schedules.close()]);
      redis.disconnect();
    },
  };
}
