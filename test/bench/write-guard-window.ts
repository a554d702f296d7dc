/**
 * The window a worker paused past its job lock still has (docs/distributed.md, "A worker
 * paused past its lock"): the time from the write check's last answer (the job's lock read
 * in Redis) to the request reaching the platform. A pause that starts inside it still
 * sends. A local HTTP server stands for the platform and notes each arrival on the same
 * clock; the check is the one distributed workers make (a GET of the lock key).
 *
 *   npx tsx test/bench/write-guard-window.ts [writes]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { PlatformClient } from '../../src/platform/platform-client.js';
import { withWriteCheck } from '../../src/platform/write-guard.js';

const WRITES = Number(process.argv[2] ?? 2000);
const arrivals: number[] = [];
const server = createServer((request, response) => {
  arrivals.push(performance.now());
  request.resume();
  request.on('end', () => {
    response.setHeader('content-type', 'application/json');
    response.end('{"valid":true}');
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const lockKey = `evsync-bench-window-${process.pid}:lock`;
await redis.set(lockKey, 'token', 'EX', 60);
const client = new PlatformClient({
  baseUrl: `http://127.0.0.1:${port}`,
  keyId: 1,
  signingKey: 'bench-key',
  rateLimit: { requestsPerSecond: 100_000, concurrency: 1 },
});
const windows: number[] = [];
for (let i = 0; i < WRITES; i += 1) {
  let answered = 0;
  await withWriteCheck(
    async () => {
      const holder = await redis.get(lockKey);
      answered = performance.now();
      return holder === 'token' ? undefined : 'lost';
    },
    () => client.request({ method: 'POST', path: '/signature_test', query: {}, body: { i: String(i) } }),
  );
  windows.push((arrivals.at(-1) ?? 0) - answered);
}
windows.sort((a, b) => a - b);
const at = (q: number): string =>
  (windows[Math.min(windows.length - 1, Math.floor(q * windows.length))] ?? 0).toFixed(3);
console.log(
  `write check → platform, ${WRITES} writes: median ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms ` +
    '(a pause starting inside this window still sends; one starting before the check does not)',
);
await redis.del(lockKey);
redis.disconnect();
await client.close();
server.close();
