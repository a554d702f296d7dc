import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/evsync-error.js';
import { distributedConfigFromEnv } from './distributed-config.js';

const BASE = { DATABASE_URL: 'postgres://evsync@db/evsync' };

describe('distributedConfigFromEnv', () => {
  it('is off without REDIS_URL', () => {
    expect(distributedConfigFromEnv({ ...BASE })).toBeUndefined();
    expect(distributedConfigFromEnv({ ...BASE, REDIS_URL: '' })).toBeUndefined();
  });

  it('reads the URL and the prefix, and never shows the password', () => {
    const config = distributedConfigFromEnv({
      ...BASE,
      REDIS_URL: 'redis://:s3cret-pass@cache:6379/2',
      EVSYNC_QUEUE_PREFIX: 'evsync-staging',
    });
    expect(config).toMatchObject({ prefix: 'evsync-staging', redisUrl: 'redis://:s3cret-pass@cache:6379/2' });
    expect(config?.description).not.toContain('s3cret-pass');
    expect(distributedConfigFromEnv({ ...BASE, REDIS_URL: 'redis://cache' })?.prefix).toBe('evsync');
  });

  it('refuses an embedded ledger: workers share the ledger', () => {
    const refuse = (): unknown => distributedConfigFromEnv({ REDIS_URL: 'redis://cache' });
    expect(refuse).toThrow(ConfigError);
    expect(refuse).toThrow(/DATABASE_URL: is missing: distributed mode/);
  });

  it('names every bad setting at once', () => {
    const refuse = (): unknown =>
      distributedConfigFromEnv({ ...BASE, REDIS_URL: 'http://cache', EVSYNC_QUEUE_PREFIX: 'a b' });
    expect(refuse).toThrow(/REDIS_URL: must be a redis:\/\//);
    expect(refuse).toThrow(/EVSYNC_QUEUE_PREFIX: must be letters/);
  });
});
