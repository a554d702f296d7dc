import type { Ledger } from '../ledger/ledger.js';
import type { DistributedConfig } from './distributed-config.js';
import { IntentQueue } from './intent-queue.js';
import { laneQueueName, readLanes } from './lanes.js';
import { connectRedis } from './open-distributed.js';
import { queueStatus, type QueueStatus } from './queue-status.js';
import { Schedules } from './schedules.js';

/** The connections `queueStatus` reads from, opened once: `evsync status` reads once, the dashboard often. */
export interface QueueStatusReader {
  read(): Promise<QueueStatus>;
  /** The shared intents queue of releases before lanes (the dashboard shows it in Bull Board). */
  queue: IntentQueue;
  /** Each lane's queue, opened once each (Bull Board shows them too). */
  laneQueues(): Promise<IntentQueue[]>;
  /** The schedules registered (the dashboard's notification watch looks for missed ones). */
  schedules: Schedules;
  /** Whether Redis answers (`/readyz`). */
  ping(): Promise<unknown>;
  close(): Promise<void>;
}

export async function openQueueStatusReader(
  config: DistributedConfig,
  ledger: Ledger,
): Promise<QueueStatusReader> {
  const redis = await connectRedis(config, 'client');
  const queue = new IntentQueue(redis, config.prefix);
  const schedules = new Schedules(redis, config.prefix);
  // Each lane's queue, opened on first use and kept until `close`: the dashboard reads often.
  const lanes = new Map<string, IntentQueue>();
  const laneQueue = (id: string): IntentQueue => {
    let lane = lanes.get(id);
    if (lane === undefined) lanes.set(id, (lane = new IntentQueue(redis, config.prefix, laneQueueName(id))));
    return lane;
  };
  return {
    read: () => queueStatus({ config, redis, queue, laneQueue, schedules, ledger }),
    queue,
    laneQueues: async () => {
      for (const id of (await readLanes(redis, config.prefix)).keys()) laneQueue(id);
      return [...lanes.values()];
    },
    schedules,
    ping: () => redis.ping(),
    close: async () => {
      await Promise.all([
        queue.close(),
        schedules.close(),
        ...[...lanes.values()].map((lane) => lane.close()),
      ]);
      redis.disconnect();
    },
  };
}
