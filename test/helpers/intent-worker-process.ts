// An intent worker in a process of its own, for a test to kill (`intent-queue-fixture.ts`):
// `node --import tsx intent-worker-process.ts REDIS_URL PREFIX`. It prints `ready` once it
// takes jobs, then `taken KEY` for each job it takes, and never finishes one: only a kill
// ends it, which leaves its jobs active in Redis as a crashed `evsync worker` would.
import { startIntentWorker } from '../../src/distributed/intent-queue.js';
import { openRedis } from '../../src/sync/queue/redis-connection.js';

const [redisUrl, prefix] = process.argv.slice(2);
if (redisUrl === undefined || prefix === undefined) throw new Error('usage: REDIS_URL PREFIX');

const worker = startIntentWorker({
  connection: await openRedis(redisUrl, 'worker'),
  prefix,
  concurrency: 1,
  handle: (job) => {
    process.stdout.write(`taken ${job.key}\n`);
    return new Promise(() => undefined);
  },
  gaveUp: () => Promise.resolve(),
});
await worker.waitUntilReady();
process.stdout.write('ready\n');
