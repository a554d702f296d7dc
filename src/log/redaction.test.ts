import { describe, expect, it } from 'vitest';
import { isSecretQueryName, redactParams, redactSecrets, redactUrl, urlsAsOrigins } from './redaction.js';

describe('redactUrl', () => {
  it('hides the password of a connection URL', () => {
    expect(redactUrl('postgres://app:hunter2@db.example.org:5432/evsync')).toBe(
      'postgres://app:[redacted]@db.example.org:5432/evsync',
    );
  });

  it('hides the value of a secret query param and keeps the others readable', () => {
    expect(redactUrl('http://user:pw@host/sz.json?token=S3cretTok')).toBe(
      'http://user:[redacted]@host/sz.json?token=[redacted]',
    );
    expect(redactUrl('https://host/export.json?lang=en&api_key=abc123&page=2')).toBe(
      'https://host/export.json?lang=en&api_key=[redacted]&page=2',
    );
  });

  it.each([
    'token',
    'TOKEN',
    'access_token',
    'accessToken',
    'api_key',
    'apikey',
    'APIKey',
    'key',
    'x-api-key',
    'X-Api-Key',
    'secret',
    'client_secret',
    'password',
    'pass',
    'pwd',
    'sig',
    'signature',
    'X-Amz-Signature',
    'X-Amz-Security-Token',
    'auth',
    'oauth_token',
    'authToken',
    'session',
    'sessionid',
    'session_token',
    'jsessionid',
    'PHPSESSID',
    'x%2Dapi%2Dkey',
  ])('treats the query param %s as secret', (name) => {
    expect(isSecretQueryName(decodeURIComponent(name))).toBe(true);
    expect(redactUrl(`https://host/x?${name}=V4lue&lang=en`)).toBe(
      `https://host/x?${name}=[redacted]&lang=en`,
    );
  });

  it.each(['lang', 'page', 'format', 'event', 'id', 'key_id', 'keyId', 'author', 'keyword', 'q', 'email'])(
    'keeps the query param %s readable',
    (name) => {
      expect(isSecretQueryName(name)).toBe(false);
      expect(redactUrl(`https://host/x?${name}=V4lue`)).toBe(`https://host/x?${name}=V4lue`);
    },
  );

  it('redacts URLs inside free text, and only the secret part', () => {
    expect(
      redactUrl('cannot download http://user:pw@host/sz.json?token=S3cretTok: connect ECONNREFUSED'),
    ).toBe('cannot download http://user:[redacted]@host/sz.json?token=[redacted]: connect ECONNREFUSED');
    expect(redactUrl('see (https://host/a?key=k3y&x=1). Then retry')).toBe(
      'see (https://host/a?key=[redacted]&x=1). Then retry',
    );
    expect(redactUrl('{"url":"https://host/a?secret=s3c","b":1}')).toBe(
      '{"url":"https://host/a?secret=[redacted]","b":1}',
    );
    expect(redactUrl('a=1&token=abc is not a URL')).toBe('a=1&token=abc is not a URL');
  });

  it('redacts secret params in the fragment and after a semicolon', () => {
    expect(redactUrl('https://host/cb#access_token=abc&state=xyz')).toBe(
      'https://host/cb#access_token=[redacted]&state=xyz',
    );
    expect(redactUrl('https://host/app;jsessionid=ABC123?x=1')).toBe(
      'https://host/app;jsessionid=[redacted]?x=1',
    );
    expect(redactUrl('https://host/app;v=2?token=abc&x=1')).toBe('https://host/app;v=2?token=[redacted]&x=1');
  });

  it('keeps a port and an e-mail in the query readable', () => {
    expect(redactUrl('http://127.0.0.1:4010/users?email=ada@example.org&token=t')).toBe(
      'http://127.0.0.1:4010/users?email=ada@example.org&token=[redacted]',
    );
    expect(redactUrl('http://u:pw@host/users?email=ada@example.org')).toBe(
      'http://u:[redacted]@host/users?email=ada@example.org',
    );
  });

  it('hides passwords with raw @, / or ? in them', () => {
    expect(redactUrl('postgres://u:p@ss/w@db/app')).toBe('postgres://u:[redacted]@db/app');
    expect(redactUrl('postgres://u:p?ss@db/app')).not.toContain('p?ss');
  });

  it('is idempotent', () => {
    const once = redactUrl('http://u:pw@host/x?token=abc&lang=en and https://h/y?sig=1]');
    expect(redactUrl(once)).toBe(once);
  });

  it('is applied by redactSecrets', () => {
    expect(redactSecrets('GET https://host/a?token=abc signed with KEY123', ['KEY123'])).toBe(
      'GET https://host/a?token=[redacted] signed with [redacted]',
    );
  });
});

describe('redactParams, copies', () => {
  it('answers the params themselves when no name is secret, a copy when one is', () => {
    const plain = { 'user[first_name]': 'Ada' };
    expect(redactParams(plain)).toBe(plain);
    const secret = { 'user[first_name]': 'Ada', 'user[svc_auth_attributes][password]': 'pw' };
    const redacted = redactParams(secret);
    expect(redacted).not.toBe(secret);
    expect(redacted).toEqual({
      'user[first_name]': 'Ada',
      'user[svc_auth_attributes][password]': '[redacted]',
    });
    expect(secret['user[svc_auth_attributes][password]']).toBe('pw');
  });
});

describe('urlsAsOrigins', () => {
  it('shows every URL in a text by its origin: no login, path, query or fragment', () => {
    expect(
      urlsAsOrigins(
        'Request cannot be constructed from a URL that includes credentials: http://hookuser:[redacted]@127.0.0.1:4567/services/T000/B000/SECRETPATHTOKEN?token=[redacted].',
      ),
    ).toBe('Request cannot be constructed from a URL that includes credentials: http://127.0.0.1:4567.');
    expect(
      urlsAsOrigins('posted to https://discord.com/api/webhooks/1/TOKEN#x, then (https://h.example/a)'),
    ).toBe('posted to https://discord.com, then (https://h.example)');
  });

  it('leaves a text without a URL, and an origin, as they are', () => {
    expect(urlsAsOrigins('webhook hooks.slack.com')).toBe('webhook hooks.slack.com');
    expect(urlsAsOrigins('webhook https://hooks.slack.com')).toBe('webhook https://hooks.slack.com');
    expect(urlsAsOrigins('the webhook answered HTTP 500')).toBe('the webhook answered HTTP 500');
  });
});
