import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const VITEST = resolve(ROOT, 'node_modules/vitest/vitest.mjs');
// Files that need Redis and nothing else: one per way of declaring that need.
const FILES = [
  'test/integration/queue/intent-queue.test.ts',
  'test/integration/distributed/redis-rate-limiter.test.ts',
];

/** A port nothing listens on: taken, then given back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/** `vitest run FILES` as `npm test` runs it, with Redis pointed at a closed port. */
async function vitestWithoutRedis(env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  const base = { ...process.env };
  for (const name of Object.keys(base)) if (name.startsWith('VITEST') || name === 'CI') delete base[name];
  const child = spawn(process.execPath, [VITEST, 'run', ...FILES], {
    cwd: ROOT,
    env: { ...base, EVSYNC_TEST_REDIS_PORT: String(await closedPort()), NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.once('close', done));
  return { code, out };
}

// Issue #40, item 10: `npm test` on a machine without Redis skips its tests loudly, as the
// README says, instead of failing with "No test suite found"; CI still fails.
describe('the tests on a machine without Redis', () => {
  it('skip loudly and pass', async () => {
    const { code, out } = await vitestWithoutRedis({});
    expect(out).not.toContain('No test suite found');
    expect(out).toMatch(/\*\*\* SKIPPING redis tests: redis is not reachable at 127\.0\.0\.1:\d+/);
    expect(out).toMatch(/Test Files +2 skipped/);
    expect(code).toBe(0);
  }, 120_000);

  it('fail with CI=true', async () => {
    const { code, out } = await vitestWithoutRedis({ CI: 'true' });
    expect(out).toContain('CI requires it');
    expect(code).not.toBe(0);
  }, 120_000);
});
