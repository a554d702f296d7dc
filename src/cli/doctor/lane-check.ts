import type { Redis } from 'ioredis';
import { platformConfigFor, platformVariables } from '../../config/conference.js';
import { ConfigError } from '../../errors/evsync-error.js';
import { IntentQueue } from '../../distributed/intent-queue.js';
import { laneHost, laneId, laneQueueName, readLanes } from '../../distributed/lanes.js';
import type { LoadedJob } from '../../sync/job-file.js';
import type { CheckResult } from './doctor-check.js';

/**
 * Whether a connected worker takes the job's lane (docs/distributed.md, "Several
 * conferences"): workers that lack its key leave its jobs waiting, which the run cuts off
 * 10 s after it starts. Known once a run of the job's key has noted the lane; before that,
 * said so. Undefined without a job, with no worker connected, or when the job's own
 * variables are not set (the platform check says that).
 */
export async function laneCheck(input: {
  redis: Redis;
  prefix: string;
  job: LoadedJob | undefined;
  workers: number;
  env?: NodeJS.ProcessEnv;
}): Promise<CheckResult | undefined> {
  if (input.job === undefined || input.workers === 0) return undefined;
  let config;
  try {
    config = platformConfigFor(input.job.platform, input.env ?? process.env);
  } catch (error) {
    if (error instanceof ConfigError) return undefined;
    throw error;
  }
  const id = laneId(config);
  const lane = (await readLanes(input.redis, input.prefix)).get(id);
  const host = laneHost(config);
  // Workers find the keys they hold from the variable names runs noted: none yet for this one.
  if (lane === undefined)
    return {
      check: 'lane',
      status: 'warn',
      message: `no run of ${host} (key ${config.keyId}) yet: whether a connected worker holds its key shows at its first run`,
      fix: 'a run no worker takes is cut off 10 s in, saying so; then start a worker with the key and resume it',
    };
  const queue = new IntentQueue(input.redis, input.prefix, laneQueueName(id));
  try {
    const serving = await queue.workers();
    if (serving > 0)
      return {
        check: 'lane',
        status: 'ok',
        message: `${serving} of the ${input.workers} worker(s) take the lane of ${host} (key ${config.keyId})`,
      };
    const names = Object.values(platformVariables(input.job.platform)).join(', ');
    return {
      check: 'lane',
      status: 'fail',
      message: `none of the ${input.workers} worker(s) connected takes the lane of ${host} (key ${config.keyId}): none holds its key`,
      fix: `start a worker whose environment sets ${names} to this base URL and key id: evsync worker`,
    };
  } finally {
    await queue.close();
  }
}
