import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisRateLimiter } from '../../../src/distributed/redis-rate-limiter.js';
import { serviceAvailable, SERVICES } from '../../helpers/services.js';

const ready = await serviceAvailable('redis');

describe.runIf(ready)('RedisRateLimiter: one bucket for every process', () => {
  const prefix = `evsync-test-${randomBytes(4).toString('hex')}`;
  const connections: Redis[] = [];
  const connect = (): Redis => {
    const redis = new Redis(SERVICES.redis.url);
    connections.push(redis);
    return redis;
  };

  beforeAll(() => void connect());
  afterAll(async () => {
    const keys = await connections[0]!.keys(`${prefix}:*`);
    if (keys.length > 0) await connections[0]!.del(...keys);
    for (const redis of connections) redis.disconnect();
  });

  it('three limiters on three connections share 60 requests/s, evenly, to the full', async () => {
    const key = `${prefix}:shared`;
    await RedisRateLimiter.setRate(connections[0]!, key, { requestsPerSecond: 60, burst: 1 });
    const limiters = [0, 1, 2].map(() => new RedisRateLimiter({ redis: connect(), key, concurrency: 20 }));
    const granted: number[] = [];
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const release = await limiters[i % 3]!.acquire();
        granted.push(performance.now() - started);
        release();
      }),
    );
    const seconds = (granted.at(-1) ?? 0) / 1000;
    // 60 at 60/s: the first at once, the last after 59 intervals; not faster, hardly slower.
    expect(seconds).toBeGreaterThan(0.95);
    expect(seconds).toBeLessThan(1.4);
    granted.sort((a, b) => a - b);
    for (let i = 10; i < granted.length; i += 1)
      // No window of 10 grants shorter than 9 intervals (less a timer's slack).
      expect(granted[i]! - granted[i - 10]!).toBeGreaterThan(9 * (1000 / 60) - 15);
    expect(limiters[0]!.currentRate).toBe(60);
  });

  it("a 429's pause holds every limiter, and the rate is cut then recovers", async () => {
    const key = `${prefix}:paused`;
    await RedisRateLimiter.setRate(connections[0]!, key, { requestsPerSecond: 100, burst: 1 });
    const paused: number[] = [];
    const first = new RedisRateLimiter({
      redis: connect(),
      key,
      concurrency: 4,
      onPause: (ms) => paused.push(ms),
    });
    const second = new RedisRateLimiter({ redis: connect(), key, concurrency: 4 });
    (await first.acquire())();
    first.slowDown(400);
    expect(paused).toEqual([400]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = performance.now();
    (await second.acquire())();
    expect(performance.now() - started).toBeGreaterThan(350);
    expect(second.currentRate).toBeLessThan(100);
    expect(second.currentRate).toBeGreaterThanOrEqual(50);
  });

  it('says what a 429 left of the rate and of its pause, as the workers follow them', async () => {
    const key = `${prefix}:status`;
    await RedisRateLimiter.setRate(connections[0]!, key, { requestsPerSecond: 40, burst: 2 });
    expect(await RedisRateLimiter.rateNow(connections[0]!, key)).toEqual({
      requestsPerSecond: 40,
      burst: 2,
      currentRequestsPerSecond: 40,
      pausedForMs: 0,
    });
    const limiter = new RedisRateLimiter({ redis: connect(), key, concurrency: 4 });
    (await limiter.acquire())();
    limiter.slowDown(2_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const cut = await RedisRateLimiter.rateNow(connections[0]!, key);
    // Halved, and not recovering while paused.
    expect(cut?.currentRequestsPerSecond).toBe(20);
    expect(cut?.pausedForMs).toBeGreaterThan(1_800);
    expect(cut?.pausedForMs).toBeLessThanOrEqual(2_000);
    expect(await RedisRateLimiter.rateInForce(connections[0]!, key)).toEqual({
      requestsPerSecond: 40,
      burst: 2,
    });
  });

  /** A limiter whose script calls are counted. */
  const counted = (key: string, concurrency: number) => {
    const redis = connect();
    const limiter = new RedisRateLimiter({ redis, key, concurrency });
    const commands = redis as unknown as { evsyncRateLimit: (...args: unknown[]) => Promise<number[]> };
    const call = commands.evsyncRateLimit.bind(redis);
    const calls = { count: 0 };
    commands.evsyncRateLimit = (...args) => {
      calls.count += 1;
      return call(...args);
    };
    return { limiter, calls };
  };

  it('at a high rate, one script call serves several acquires in a row', async () => {
    const key = `${prefix}:ahead`;
    await RedisRateLimiter.setRate(connections[0]!, key, { requestsPerSecond: 10_000, burst: 100 });
    const { limiter, calls } = counted(key, 8);
    for (let i = 0; i < 40; i += 1) (await limiter.acquire())();
    // The first call learns the rate; then each reserves 7 more than it is asked for.
    expect(calls.count).toBeLessThanOrEqual(8);
    // Acquires waiting together share a call too.
    calls.count = 0;
    await new Promise((resolve) => setTimeout(resolve, 30));
    const releases = await Promise.all(Array.from({ length: 8 }, () => limiter.acquire()));
    for (const release of releases) release();
    expect(calls.count).toBe(1);
  });

  it('at a low rate, and once a reserved slot is past, every acquire asks Redis', async () => {
    const key = `${prefix}:no-ahead`;
    await RedisRateLimiter.setRate(connections[0]!, key, { requestsPerSecond: 40, burst: 10 });
    const { limiter, calls } = counted(key, 8);
    for (let i = 0; i < 5; i += 1) (await limiter.acquire())();
    expect(calls.count).toBe(5);

    const fast = `${prefix}:stale`;
    await RedisRateLimiter.setRate(connections[0]!, fast, { requestsPerSecond: 10_000, burst: 100 });
    const other = counted(fast, 8);
    (await other.limiter.acquire())();
    (await other.limiter.acquire())();
    expect(other.calls.count).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 40));
    (await other.limiter.acquire())();
    expect(other.calls.count).toBe(3);
  });

  it('drops the slots reserved ahead when the platform answers 429', async () => {
    const key = `${prefix}:ahead-429`;
    await RedisRateLimiter.setRate(connections[0]!, key, { requestsPerSecond: 10_000, burst: 100 });
    const { limiter } = counted(key, 8);
    (await limiter.acquire())();
    (await limiter.acquire())();
    limiter.slowDown(300);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = performance.now();
    (await limiter.acquire())();
    expect(performance.now() - started).toBeGreaterThan(250);
  });

  it('caps the requests in flight in this process', async () => {
    const key = `${prefix}:slots`;
    await RedisRateLimiter.setRate(connections[0]!, key, { requestsPerSecond: 10_000, burst: 10 });
    const limiter = new RedisRateLimiter({ redis: connect(), key, concurrency: 2 });
    let active = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        const release = await limiter.acquire();
        active += 1;
        peak = Math.max(peak, active);
        await new Promise((resolve) => setTimeout(resolve, 5));
        active -= 1;
        release();
      }),
    );
    expect(peak).toBe(2);
  });
});
