import type { DistributedConfig } from './distributed-config.js';
import { IntentQueue } from './intent-queue.js';
import { laneQueueName, readLanes } from './lanes.js';
import { connectRedis } from './open-distributed.js';

/** The states whose jobs Redis keeps after they ran, or before (docs/distributed.md, "Jobs in Redis"). */
const STATES = ['completed', 'failed', 'waiting', 'delayed', 'prioritized'] as const;
const PAGE = 1000;

export interface ErasedJobs {
  removed: number;
  /** Jobs of the person being sent right now: left to finish (their run then records the marker-free result). */
  active: number;
}

/**
 * Removes from the intents queues (every lane's, and the shared one) every job naming an
 * erased person (docs/privacy.md, "Redis"): a job carries its intent's key, a user's
 * client_id or a link key holding it, and its id begins with it. `matches` says whether a
 * job's key is the person's.
 */
export async function eraseIntentJobs(
  config: DistributedConfig,
  matches: (kind: string, key: string) => boolean,
): Promise<ErasedJobs> {
  const redis = await connectRedis(config, 'client');
  // The shared queue of releases before lanes, and every lane's.
  const names = [undefined, ...[...(await readLanes(redis, config.prefix)).keys()].map(laneQueueName)];
  const erased: ErasedJobs = { removed: 0, active: 0 };
  try {
    for (const name of names) {
      const intents = new IntentQueue(redis, config.prefix, name);
      try {
        const one = await eraseFrom(intents, matches);
        erased.removed += one.removed;
        erased.active += one.active;
      } finally {
        await intents.close();
      }
    }
    return erased;
  } finally {
    redis.disconnect();
  }
}

async function eraseFrom(
  intents: IntentQueue,
  matches: (kind: string, key: string) => boolean,
): Promise<ErasedJobs> {
  // Found first, then removed: removing while paging would shift the pages.
  const found = [];
  for (let start = 0; ; start += PAGE) {
    const jobs = await intents.queue.getJobs([...STATES], start, start + PAGE - 1, true);
    if (jobs.length === 0) break;
    for (const job of jobs) if (job !== undefined && matches(job.data.kind, job.data.key)) found.push(job);
  }
  for (const job of found) await job.remove();
  const active = (await intents.queue.getJobs(['active'])).filter(
    (job) => job !== undefined && matches(job.data.kind, job.data.key),
  ).length;
  return { removed: found.length, active };
}
