import type { Logger } from '../log/logger.js';
import type { JobFile } from '../sync/job-file.js';
import { openEngine, type OpenEngine, type OpenEngineOptions } from '../sync/runs/open-engine.js';
import { distributedConfigFromEnv } from './distributed-config.js';

export type EngineForEnvOptions = OpenEngineOptions & {
  rate: JobFile['rate'];
  logger: Logger;
  /** The job the engine runs: named with its rate declaration (`evsync status`). */
  jobName?: string;
};

/**
 * The engine `run`, `resume` and `retry` use: in one process (`openEngine`), or, when
 * `REDIS_URL` is set, distributed mode's (`openDistributedEngine`). That one is imported only
 * then: BullMQ and ioredis cost a third of a second at every start of a nightly run in one
 * process.
 */
export async function openEngineForEnv(
  options: EngineForEnvOptions,
): Promise<OpenEngine & { mode: 'inline' | 'distributed' }> {
  const config = options.client ? undefined : distributedConfigFromEnv();
  if (config === undefined) return { ...(await openEngine(options)), mode: 'inline' };
  const { openDistributedEngine } = await import('./open-distributed.js');
  return openDistributedEngine(options, config);
}
