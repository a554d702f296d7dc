import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors/evsync-error.js';
import { channelName, sameChannel } from './channel-name.js';
import { fetchFailure, webhookTarget } from './webhook-target.js';

/** A Slack-style webhook with a secret in each place a URL can hold one. */
const URL_WITH_SECRETS =
  'http://hookuser:HOOKPASSWORD@127.0.0.1:1/services/T000/B000/SECRETPATHTOKEN?token=QUERYSECRET';
const SECRETS = ['hookuser', 'HOOKPASSWORD', 'SECRETPATHTOKEN', 'QUERYSECRET', 'T000'];

const webhook = { webhook: { url_env: 'HOOK_URL', format: 'json' as const } };

describe('channelName', () => {
  it('names a webhook by its scheme, host and port only', () => {
    const name = channelName(webhook, { HOOK_URL: URL_WITH_SECRETS });
    expect(name).toBe('webhook http://127.0.0.1:1');
    expect(channelName(webhook, { HOOK_URL: 'https://hooks.slack.com/services/T/B/X' })).toBe(
      'webhook https://hooks.slack.com',
    );
  });

  it('names the variable, never its value, when there is no URL', () => {
    expect(channelName(webhook, {})).toBe('webhook (HOOK_URL not set)');
    expect(channelName(webhook, { HOOK_URL: 'hooks.slack.com/services/SECRET' })).toBe(
      'webhook (HOOK_URL is not a URL)',
    );
  });

  it('takes a name recorded with the host alone for the same channel', () => {
    expect(sameChannel('webhook https://hooks.slack.com')).toBe(sameChannel('webhook hooks.slack.com'));
    expect(sameChannel('email to ops@example.com')).toBe('email to ops@example.com');
  });
});

describe('webhookTarget', () => {
  it('moves a login from the URL to an Authorization: Basic header', () => {
    const target = webhookTarget('HOOK_URL', 'https://us%40er:p%3Ass@hooks.example.com/in?x=1');
    expect(target.url).toBe('https://hooks.example.com/in?x=1');
    expect(target.origin).toBe('https://hooks.example.com');
    expect(target.headers).toEqual({
      authorization: `Basic ${Buffer.from('us@er:p:ss').toString('base64')}`,
    });
  });

  it('adds no header to a URL without a login', () => {
    expect(webhookTarget('HOOK_URL', 'https://hooks.example.com/x').headers).toEqual({});
  });

  it('hides the path, query and login in words, leaving the origin', () => {
    const target = webhookTarget('HOOK_URL', URL_WITH_SECRETS);
    const said = target.hide(
      `Request cannot be constructed from a URL that includes credentials: ${URL_WITH_SECRETS}; ` +
        `then ${target.url}, user hookuser, ${target.headers.authorization}`,
    );
    for (const secret of SECRETS) expect(said).not.toContain(secret);
    expect(said).not.toContain(target.headers.authorization);
    expect(said).toContain('http://127.0.0.1:1;');
  });

  it('refuses, naming the variable only, what is no http(s) URL', () => {
    expect(() => webhookTarget('HOOK_URL', 'hooks.example.com/SECRET')).toThrow(ConfigError);
    expect(() => webhookTarget('HOOK_URL', 'hooks.example.com/SECRET')).toThrow(/^HOOK_URL is not a URL/);
    expect(() => webhookTarget('HOOK_URL', 'ftp://u:SECRET@h/x')).toThrow(/^HOOK_URL is a ftp: URL/);
  });
});

describe('fetchFailure', () => {
  const target = webhookTarget('HOOK_URL', URL_WITH_SECRETS);

  it('tells a request fetch never makes from a receiver that does not answer', () => {
    expect(fetchFailure(new TypeError('fetch failed', { cause: new Error('bad port') }), target)).toEqual({
      unsendable: true,
      text: 'fetch never connects to port 1 (https://fetch.spec.whatwg.org/#port-blocking)',
    });
    const refused = fetchFailure(
      new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') }),
      target,
    );
    expect(refused).toEqual({ unsendable: false, text: 'fetch failed: connect ECONNREFUSED 127.0.0.1:1' });
  });

  it('says why fetch built no request, without the URL it quotes', () => {
    const failure = fetchFailure(
      new TypeError(
        `Request cannot be constructed from a URL that includes credentials: ${URL_WITH_SECRETS}`,
      ),
      target,
    );
    expect(failure.unsendable).toBe(true);
    for (const secret of SECRETS) expect(failure.text).not.toContain(secret);
  });
});
