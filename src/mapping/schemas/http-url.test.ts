import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { httpUrlSchema, isHttpUrl } from './http-url.js';

describe('isHttpUrl', () => {
  it.each([
    'https://example.com',
    'http://example.com/path?q=1#frag',
    'HTTPS://EXAMPLE.COM/',
    'https://user:pw@example.com:8443/a',
    'https://[2001:db8::1]/',
    'http://127.0.0.1:8080/',
    'https://www.linkedin.com/in/ada-lovelace',
    'https://bücher.example/',
  ])('accepts %s', (url) => {
    expect(isHttpUrl(url)).toBe(true);
  });

  it.each([
    '',
    'example.com',
    'www.example.com/ada',
    '@ada',
    'ftp://example.com/a.png',
    'mailto:ada@example.com',
    'javascript:alert(1)',
    'https://',
    'https:///path',
    'https://exa mple.com/',
    'https://example.com/a b',
    ' https://example.com',
    'https://example.com:99999/',
    'https://[::1/',
    'https:\\\\example.com/',
    'https://example.com\\path',
  ])('refuses %j', (url) => {
    expect(isHttpUrl(url)).toBe(false);
    expect(httpUrlSchema.safeParse(url).success).toBe(false);
  });

  it('accepts every generated web URL', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        expect(isHttpUrl(url)).toBe(true);
      }),
    );
  });
});
