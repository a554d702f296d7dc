import { describe, expect, it } from 'vitest';
import { conferenceUrl, conferenceUrlFor, namesConference, platformConfigFor } from './conference.js';

describe('a conference', () => {
  it('is its base URL: scheme, host, port and path, without a trailing slash', () => {
    expect(conferenceUrl('HTTPS://MyConf.Example.com:443/api/')).toBe('https://myconf.example.com/api');
    expect(conferenceUrl('http://127.0.0.1:8080//')).toBe('http://127.0.0.1:8080');
    expect(conferenceUrl('https://x.example.com/a?b=1#c')).toBe('https://x.example.com/a');
  });

  it('is named by a person however they write it: a base URL, or the host `evsync status` shows', () => {
    const local = 'http://127.0.0.1:47811';
    for (const named of [
      'http://127.0.0.1:47811',
      'HTTP://127.0.0.1:47811/',
      '127.0.0.1:47811',
      ' 127.0.0.1:47811/ ',
    ])
      expect(namesConference(named, local), named).toBe(true);
    const conf = 'https://myconf.example.com/api';
    for (const named of [
      'MyConf.Example.com/api',
      'https://myconf.example.com:443/api/',
      'myconf.example.com/api/',
    ])
      expect(namesConference(named, conf), named).toBe(true);
    // Another scheme, port or path is another conference; what is no URL names none.
    for (const named of ['https://127.0.0.1:47811', '127.0.0.1:47812', '127.0.0.1', 'not a host', ''])
      expect(namesConference(named, local), named).toBe(false);
    expect(namesConference('myconf.example.com', conf)).toBe(false);
    expect(namesConference('myconf.example.com/API', conf)).toBe(false);
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
