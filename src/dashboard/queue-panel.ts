import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Hono } from 'hono';
import type { DistributedConfig } from '../distributed/distributed-config.js';
import type { RunPhaseNote } from '../distributed/distributed-executor.js';
import type { QueueStatus } from '../distributed/queue-status.js';
import { openQueueStatusReader } from '../distributed/queue-status-reader.js';
import type { Ledger } from '../ledger/ledger.js';

/** Distributed mode on the dashboard: what `evsync status` shows, and Bull Board. */
export interface QueuePanel {
  status(): Promise<QueueStatus>;
  /** The phase a distributed run is in, as its `evsync run` notes it for `evsync status`. */
  phaseOf: (runId: string) => Promise<RunPhaseNote | undefined>;
  /** Bull Board, to mount at `/queues` behind the dashboard's login. */
  bullBoard: Hono;
  close(): Promise<void>;
}

export async function openQueuePanel(config: DistributedConfig, ledger: Ledger): Promise<QueuePanel> {
  const reader = await openQueueStatusReader(config, ledger);
  const board = new HonoAdapter(serveStatic).setBasePath('/queues');
  // Read-only: jobs are the engine's to retry or remove, through runs (docs/dashboard.md).
  createBullBoard({
    queues: [new BullMQAdapter(reader.queue.queue, { readOnlyMode: true })],
    serverAdapter: board,
  });
  return {
    status: () => reader.read(),
    phaseOf: async (runId) => (await reader.queue.phaseNotes()).get(runId),
    bullBoard: board.registerPlugin(),
    close: () => reader.close(),
  };
}
