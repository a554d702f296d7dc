import { distributedConfigFromEnv } from '../../distributed/distributed-config.js';
import type { openEngineForEnv } from '../../distributed/open-distributed.js';
import { openEngine } from '../../sync/runs/open-engine.js';

type EngineForEnv = Awaited<ReturnType<typeof openEngineForEnv>>;

/**
 * The engine `run`, `resume` and `retry` use, as `openEngineForEnv` opens it. Without
 * `REDIS_URL` (the common case: a nightly run in one process) it is `openEngine` itself, and
 * distributed mode's modules, BullMQ and ioredis among them (a third of a second at every
 * start), are loaded only when `REDIS_URL` asks for them.
 */
export async function openRunEngine(options: Parameters<typeof openEngineForEnv>[0]): Promise<EngineForEnv> {
  if (options.client === undefined && distributedConfigFromEnv() !== undefined) {
    // Lazy: distributed mode alone needs the queue (bullmq, ioredis).
    const distributed = await import('../../distributed/open-distributed.js');
    return distributed.openEngineForEnv(options);
  }
  return { ...(await openEngine(options)), mode: 'inline' };
}
