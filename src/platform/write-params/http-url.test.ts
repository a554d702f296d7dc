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

  it('judges a URL as parsing it whole would, whatever follows its authority', () => {
    // isHttpUrl parses only the `scheme://authority` part and remembers the answer.
    const whole = (value: string): boolean => {
      if (!/^https?:\/\/[^\s/\\][^\s\\]*$/i.test(value)) return false;
      try {
        const url = new URL(value);
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
      } catch {
        return false;
      }
    };
    const host = fc.oneof(
      fc.domain(),
      fc.string({ maxLength: 12 }),
      fc.constantFrom(
        '127.0.0.1',
        '999.1.1.1',
        '[::1]',
        '[::1',
        'xn--a',
        'a\u0001',
        'ex%41mple.com',
        'u:p@h.io',
      ),
    );
    const port = fc.constantFrom('', ':', ':80', ':99999', ':x');
    const rest = fc.oneof(
      fc.constant(''),
      fc.string({ maxLength: 12 }).map((tail) => `/${tail}`),
      fc.string().map((tail) => `?${tail}`),
    );
    fc.assert(
      fc.property(fc.constantFrom('http://', 'HTTPS://'), host, port, rest, (scheme, name, number, tail) => {
        const url = `${scheme}${name}${number}${tail}`;
        expect(isHttpUrl(url)).toBe(whole(url));
        expect(isHttpUrl(url)).toBe(whole(url)); // remembered
      }),
      { numRuns: 3000 },
    );
  });

  it('accepts every generated web URL', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        expect(isHttpUrl(url)).toBe(true);
      }),
    );
  });
});
