import type { KeepJobs } from 'bullmq';

/** Which BullMQ queue, on which Redis: what both halves of the adapter are given. */
export interface BullmqTarget {
  /** `REDIS_URL`; never logged with its password. */
  redisUrl: string;
  /** BullMQ's key prefix (`EVSYNC_QUEUE_PREFIX`): installations and tests sharing a Redis keep apart by it. */
  prefix: string;
  /** The queue's name. */
  name: string;
}

/** What one BullMQ job carries: the item, under a key of its own so any JSON value travels. */
export interface CarriedItem<W> {
  item: W;
}

/**
 * Finished jobs kept in Redis, by age (seconds) and count: the ledger keeps the history,
 * Redis only carries the work; kept a while, a finished job still dedupes a second add of
 * its id (docs/distributed.md, "Jobs in Redis").
 */
export interface RemovalPolicy {
  removeOnComplete: KeepJobs;
  removeOnFail: KeepJobs;
}

export const DEFAULT_REMOVAL: RemovalPolicy = {
  removeOnComplete: { age: 3600, count: 10_000 },
  removeOnFail: { age: 24 * 3600, count: 10_000 },
};

const SAFE_NAME = /^[A-Za-z0-9_.-]+$/;

/** BullMQ refuses `:` in a queue name; keys stay readable with these characters only. */
export function checkTarget(target: BullmqTarget): void {
  for (const [what, value] of [
    ['queue name', target.name],
    ['queue prefix', target.prefix],
  ] as const) {
    if (!SAFE_NAME.test(value))
      throw new RangeError(`the ${what} must be letters, digits, "_", "-" or "." (got "${value}")`);
  }
}
