import { describe, expect, it } from 'vitest';
import { conferenceUrl, conferenceUrlFor, platformConfigFor } from './conference.js';

describe('a conference', () => {
  it('is its base URL: scheme, host, port and path, without a trailing slash', () => {
    expect(conferenceUrl('HTTPS://MyConf.Example.com:443/api/')).toBe('https://myconf.example.com/api');
    expect(conferenceUrl('http://127.0.0.1:8080//')).toBe('http://127.0.0.1:8080');
    expect(conferenceUrl('https://x.example.com/a?b=1#c')).toBe('https://x.example.com/a');
  });

  it('is read from the variables a job names, falling back to EVSYNC_*, naming them in a problem', () => {
    const env = {
      CONF_A_URL: 'https://a.example.com/',
      CONF_A_KEY: '7',
      EVSYNC_SIGNING_KEY: 'secret-key',
    };
    const config = platformConfigFor({ base_url_env: 'CONF_A_URL', key_id_env: 'CONF_A_KEY' }, env);
    expect(config).toMatchObject({ baseUrl: 'https://a.example.com', keyId: 7, signingKey: 'secret-key' });
    expect(() => platformConfigFor({ base_url_env: 'CONF_B_URL' }, env)).toThrow(/CONF_B_URL/);
    expect(() =>
      platformConfigFor(
        { signing_key_env: 'NOPE' },
        { ...env, EVSYNC_BASE_URL: 'https://b.example.com', EVSYNC_KEY_ID: '1' },
      ),
    ).toThrow(/NOPE: is missing/);
    expect(() => conferenceUrlFor({}, {})).toThrow(/EVSYNC_BASE_URL: is missing/);
  });
});
