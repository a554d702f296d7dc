import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/evsync-error.js';
import { platformConfigFromEnv, retentionFromEnv, vendorFromEnv } from './env-config.js';

describe('platformConfigFromEnv', () => {
  it('reads the settings, trims the URL, defaults the vendor word', () => {
    const config = platformConfigFromEnv({
      EVSYNC_BASE_URL: 'https://myconf.example.com/',
      EVSYNC_KEY_ID: '42',
      EVSYNC_SIGNING_KEY: 's3cret-key',
    });
    expect(config).toEqual({
      baseUrl: 'https://myconf.example.com',
      keyId: 42,
      signingKey: 's3cret-key',
      vendor: 'svc',
    });
  });

  it('reports every missing or wrong value at once, by name, without echoing the key', () => {
    let error: unknown;
    try {
      platformConfigFromEnv({ EVSYNC_BASE_URL: 'ftp://x', EVSYNC_KEY_ID: 'abc', EVSYNC_VENDOR: 'Zer Ista' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/EVSYNC_BASE_URL: must be an http\(s\) URL/);
    expect(message).toMatch(/EVSYNC_KEY_ID: must be the integer key_id/);
    expect(message).toMatch(/EVSYNC_SIGNING_KEY: is missing/);
    expect(message).toMatch(/EVSYNC_VENDOR: must be a lower-case word/);
  });

  it('never puts the signing key in an error', () => {
    expect(() =>
      platformConfigFromEnv({ EVSYNC_BASE_URL: 'nope', EVSYNC_KEY_ID: '1', EVSYNC_SIGNING_KEY: 'TOPSECRET' }),
    ).toThrow(expect.objectContaining({ message: expect.not.stringContaining('TOPSECRET') }));
  });
});

describe('vendorFromEnv', () => {
  it('is svc when unset and the word when it is one', () => {
    expect(vendorFromEnv({})).toBe('svc');
    expect(vendorFromEnv({ EVSYNC_VENDOR: 'zerista_2' })).toBe('zerista_2');
  });

  it('refuses what platformConfigFromEnv refuses, with the same line', () => {
    for (const value of ['Zerista', '', 'two words']) {
      const env = { EVSYNC_VENDOR: value };
      const run = (() => {
        try {
          platformConfigFromEnv({
            EVSYNC_BASE_URL: 'https://x.example',
            EVSYNC_KEY_ID: '1',
            EVSYNC_SIGNING_KEY: 'k',
            ...env,
          });
        } catch (error) {
          return error as Error;
        }
        throw new Error('platformConfigFromEnv accepted it');
      })();
      expect(() => vendorFromEnv(env)).toThrow(ConfigError);
      expect(() => vendorFromEnv(env)).toThrow(run.message);
    }
  });
});

describe('retentionFromEnv', () => {
  it('reads the two rules, unset or empty as none, and names a bad value', () => {
    expect(retentionFromEnv({})).toBeUndefined();
    expect(
      retentionFromEnv({ EVSYNC_RETENTION_OLDER_THAN: ' ', EVSYNC_RETENTION_KEEP_RUNS: '' }),
    ).toBeUndefined();
    expect(
      retentionFromEnv({ EVSYNC_RETENTION_OLDER_THAN: '90d', EVSYNC_RETENTION_KEEP_RUNS: '30' }),
    ).toEqual({
      olderThan: '90d',
      keepRuns: 30,
    });
    expect(() => retentionFromEnv({ EVSYNC_RETENTION_OLDER_THAN: '3 months' })).toThrow(
      /EVSYNC_RETENTION_OLDER_THAN: write a whole number and a unit/,
    );
    expect(() => retentionFromEnv({ EVSYNC_RETENTION_KEEP_RUNS: '0' })).toThrow(/EVSYNC_RETENTION_KEEP_RUNS/);
  });
});
