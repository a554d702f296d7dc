import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { ConferencePlatforms } from '../../../src/distributed/conference-platforms.js';
import { laneId } from '../../../src/distributed/lanes.js';
import { createLogger } from '../../../src/log/logger.js';
import type { RunRecord } from '../../../src/model/run-record.js';
import { serviceAvailable, SERVICES } from '../../helpers/services.js';

const ready = await serviceAvailable('redis');

// A reviewing helper's find: a worker whose signature the platform refused stayed off the
// conference's lane for the whole minute after its .env was fixed, as docs/distributed.md
// promised it would not, and a resume at once was cut off again with the old advice.
describe.runIf(ready)('ConferencePlatforms: a refused signing key', () => {
  const prefix = `evsync-test-${randomBytes(4).toString('hex')}`;
  const redis = new Redis(SERVICES.redis.url);
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('keeps the worker off the lane until its key changes here, not a minute more', async () => {
    const baseUrl = 'http://127.0.0.1:9';
    const env: NodeJS.ProcessEnv = {
      CONF_A_URL: baseUrl,
      CONF_A_KEY_ID: '1',
      CONF_A_SIGNING_KEY: 'the-wrong-key-of-conference-a',
    };
    const platforms = new ConferencePlatforms({
      redis,
      prefix,
      concurrency: 1,
      logger: createLogger({ level: 'silent' }),
      onPause: () => undefined,
      env: () => env,
    });
    const run = {
      options: {
        platform: {
          base_url_env: 'CONF_A_URL',
          key_id_env: 'CONF_A_KEY_ID',
          signing_key_env: 'CONF_A_SIGNING_KEY',
        },
      },
      conference: { id: 1, baseUrl },
    } as unknown as RunRecord;
    const lane = laneId({ baseUrl, keyId: 1 });
    try {
      await platforms.platformFor(run);
      platforms.signatureRefused(run, 'POST /user answered 401: signature refused');
      expect(platforms.refusesLane(lane)).toBe(true);
      // The same key, read again: still refused.
      expect(platforms.refusesLane(lane)).toBe(true);
      await expect(platforms.platformFor(run)).rejects.toThrow(/refused the signature/);
      env.CONF_A_SIGNING_KEY = 'the-right-key-of-conference-a';
      expect(platforms.refusesLane(lane)).toBe(false);
      await expect(platforms.platformFor(run)).resolves.toBeDefined();
    } finally {
      await platforms.close();
    }
  });
});
