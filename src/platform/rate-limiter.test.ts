import { afterEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from './rate-limiter.js';

/** Takes `count` tokens, releasing each at once, and returns the grant times. */
async function grantTimes(limiter: RateLimiter, count: number, clock: () => number): Promise<number[]> {
  const times: number[] = [];
  await Promise.all(
    Array.from({ length: count }, async () => {
      const release = await limiter.acquire();
      times.push(clock());
      release();
    }),
  );
  return times;
}

describe('RateLimiter rate (real timers)', () => {
  it('holds the configured rate within ±5 % over about 3 s', async () => {
    const rate = 40;
    const limiter = new RateLimiter({ requestsPerSecond: rate, concurrency: 50 });
    const times = await grantTimes(limiter, 121, () => performance.now());
    const seconds = ((times.at(-1) ?? 0) - (times[0] ?? 0)) / 1000;
    const measured = (times.length - 1) / seconds;
    expect(seconds).toBeGreaterThan(2.5);
    expect(measured).toBeGreaterThan(rate * 0.95);
    expect(measured).toBeLessThan(rate * 1.05);
  });
});

describe('RateLimiter (fake timers)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('spaces requests evenly, after an initial burst', async () => {
    vi.useFakeTimers({ now: 0 });
    const limiter = new RateLimiter({ requestsPerSecond: 10, burst: 3, concurrency: 10 });
    const pending = grantTimes(limiter, 6, Date.now);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await pending).toEqual([0, 0, 0, 100, 200, 300]);
  });

  it('a timer that fires late (busy event loop) catches up, keeping the average rate', async () => {
    vi.useFakeTimers({ now: 0 });
    let stall = 0;
    const limiter = new RateLimiter({
      requestsPerSecond: 10,
      concurrency: 20,
      now: () => Date.now() + stall,
    });
    const granted: number[] = [];
    const all = Array.from({ length: 8 }, async () => {
      const release = await limiter.acquire();
      granted.push(Date.now() + stall);
      release();
    });
    await vi.advanceTimersByTimeAsync(99);
    stall = 300; // the timer due at 100 runs at 400
    await vi.advanceTimersByTimeAsync(1);
    expect(granted).toEqual([0, 400, 400, 400, 400]);
    await vi.advanceTimersByTimeAsync(300);
    await Promise.all(all);
    expect(granted.slice(5)).toEqual([500, 600, 700]);
  });

  it('holds a rate above one token a millisecond with a burst of one (timers wait at least 1 ms)', async () => {
    vi.useFakeTimers({ now: 0 });
    const limiter = new RateLimiter({ requestsPerSecond: 10_000, burst: 1, concurrency: 16 });
    const pending = grantTimes(limiter, 2_001, Date.now);
    await vi.advanceTimersByTimeAsync(400);
    const times = await pending;
    // 2,000 intervals of 0.1 ms: 200 ms at the configured rate (it was one grant a millisecond).
    expect(times.at(-1)).toBeGreaterThanOrEqual(199);
    expect(times.at(-1)).toBeLessThanOrEqual(202);
  });

  it("lets a millisecond's tokens go together by default, and no more", () => {
    expect(new RateLimiter({ requestsPerSecond: 50 }).burst).toBe(1);
    expect(new RateLimiter({ requestsPerSecond: 1_000 }).burst).toBe(1);
    expect(new RateLimiter({ requestsPerSecond: 10_000 }).burst).toBe(10);
  });

  it('a quiet spell does not bank tokens beyond the burst', async () => {
    vi.useFakeTimers({ now: 0 });
    const limiter = new RateLimiter({ requestsPerSecond: 10, burst: 2, concurrency: 20 });
    await grantTimes(limiter, 1, Date.now);
    await vi.advanceTimersByTimeAsync(5000);
    const pending = grantTimes(limiter, 4, Date.now);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await pending).toEqual([5000, 5000, 5100, 5200]);
  });

  it('never lets more than `concurrency` run at once', async () => {
    vi.useFakeTimers({ now: 0 });
    const limiter = new RateLimiter({ requestsPerSecond: 1000, burst: 100, concurrency: 2 });
    let running = 0;
    let peak = 0;
    const work = Array.from({ length: 8 }, async () => {
      const release = await limiter.acquire();
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 50));
      running -= 1;
      release();
    });
    expect(limiter.queued).toBe(6);
    await vi.advanceTimersByTimeAsync(1000);
    await Promise.all(work);
    expect(peak).toBe(2);
    expect(limiter.active).toBe(0);
  });

  it('a release called twice frees one slot only', async () => {
    const limiter = new RateLimiter({ requestsPerSecond: 1000, burst: 10, concurrency: 1 });
    const release = await limiter.acquire();
    release();
    release();
    const second = await limiter.acquire();
    expect(limiter.active).toBe(1);
    second();
  });

  it('on a 429 pauses every caller, halves the rate, then recovers gradually', async () => {
    vi.useFakeTimers({ now: 0 });
    const limiter = new RateLimiter({ requestsPerSecond: 10, concurrency: 10, recoveryPerSecond: 0.1 });
    await grantTimes(limiter, 1, Date.now);
    limiter.slowDown(2000);
    // Within the cooldown, further 429s of requests already in flight do not cut again.
    limiter.slowDown(2000);
    expect(limiter.currentRate).toBe(5);
    const pending = grantTimes(limiter, 3, Date.now);
    await vi.advanceTimersByTimeAsync(3000);
    const [first = 0, second = 0, third = 0] = await pending;
    expect(first).toBe(2000);
    // 5/s → 200 ms apart, a little less as the rate climbs back.
    expect(second - first).toBeGreaterThan(185);
    expect(second - first).toBeLessThanOrEqual(200);
    expect(third - second).toBeLessThan(second - first);
    // Recovery starts when the pause ends: +1 request/s per second back to 10.
    expect(limiter.currentRate).toBeCloseTo(6, 5);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(limiter.currentRate).toBe(10);
  });

  it('never cuts below the floor', () => {
    vi.useFakeTimers({ now: 0 });
    const limiter = new RateLimiter({ requestsPerSecond: 10, minRateShare: 0.2 });
    for (let i = 0; i < 6; i += 1) {
      vi.advanceTimersByTime(1000);
      limiter.slowDown(0);
    }
    expect(limiter.currentRate).toBe(2);
  });

  it('an aborted waiter leaves the queue and the others keep their turn', async () => {
    vi.useFakeTimers({ now: 0 });
    const limiter = new RateLimiter({ requestsPerSecond: 10, concurrency: 10 });
    const first = await limiter.acquire();
    const controller = new AbortController();
    const dropped = limiter.acquire(controller.signal);
    const kept = limiter.acquire();
    expect(limiter.queued).toBe(2);
    controller.abort(new Error('stop'));
    await expect(dropped).rejects.toThrow('stop');
    expect(limiter.queued).toBe(1);
    await vi.advanceTimersByTimeAsync(100);
    const second = await kept;
    expect(Date.now()).toBe(100);
    first();
    second();
    await expect(limiter.acquire(controller.signal)).rejects.toThrow('stop');
  });

  it('refuses nonsense options', () => {
    expect(() => new RateLimiter({ requestsPerSecond: 0 })).toThrow(RangeError);
    expect(() => new RateLimiter({ concurrency: -1 })).toThrow(RangeError);
  });
});
