import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../log/logger.js';
import { RateLimitedError } from './platform-error.js';
import { rateLimited } from './rate-limited.js';
import { RateLimiter } from './rate-limiter.js';

describe('rateLimited layer', () => {
  it('a 429 slows the shared limiter, warns once per cut, and frees the slot', async () => {
    const lines: string[] = [];
    const logger = createLogger(
      { level: 'debug' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString('utf8'));
          done();
        },
      }),
    );
    const limiter = new RateLimiter({ requestsPerSecond: 100, burst: 10, concurrency: 1 });
    const send = rateLimited(
      () => Promise.reject(new RateLimitedError({ method: 'GET', path: '/user' }, 0)),
      limiter,
      { logger },
    );
    await expect(send({ method: 'GET', path: '/user' })).rejects.toBeInstanceOf(RateLimitedError);
    await expect(send({ method: 'GET', path: '/user' })).rejects.toBeInstanceOf(RateLimitedError);
    expect(limiter.active).toBe(0);
    expect(limiter.currentRate).toBeLessThan(60);
    expect(lines.filter((line) => line.includes('platform rate limit (429)'))).toHaveLength(1);
  });
});
