import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { emailSchema, isEmail } from './email.js';

describe('isEmail', () => {
  it.each([
    'ada@example.com',
    'ada.lovelace+conf@mail.example.co.uk',
    "o'brien@example.ie",
    'x@a-b.io',
    'UPPER@EXAMPLE.COM',
    '1234@123.example',
    'xn--mller-kva@xn--mller-kva.de',
    `${'a'.repeat(64)}@example.com`,
  ])('accepts %s', (value) => {
    expect(isEmail(value)).toBe(true);
  });

  it.each([
    '',
    'bob@',
    '@example.com',
    'bob',
    'bob@localhost',
    'bob@@example.com',
    'bob @example.com',
    'bob@exa mple.com',
    'bob@-example.com',
    'bob@example-.com',
    'bob@example..com',
    'bob@.example.com',
    'bob@example.com.',
    'jörg@example.de',
    'bob@müller.de',
    '"bob"@example.com',
    'bob@example.com\n',
    `${'a'.repeat(65)}@example.com`,
    `bob@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`,
    `bob@${'a'.repeat(64)}.com`,
  ])('refuses %j', (value) => {
    expect(isEmail(value)).toBe(false);
  });

  it('agrees with the standard written as regular expressions, on any text', () => {
    // The definition isEmail implements with a character loop, kept here as its reference.
    const local = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+$/;
    const label = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;
    const reference = (value: string): boolean => {
      const at = value.lastIndexOf('@');
      if (value.length > 254 || at <= 0 || at > 64 || !local.test(value.slice(0, at))) return false;
      const labels = value.slice(at + 1).split('.');
      return labels.length >= 2 && labels.every((part) => label.test(part));
    };
    const piece = fc.constantFrom('a', 'Z', '9', '-', '.', '@', '+', '_', ' ', 'é', '"', '', 'xn--');
    const text = fc.oneof(
      fc.string(),
      fc.emailAddress(),
      fc.array(piece, { maxLength: 30 }).map((parts) => parts.join('')),
      fc.tuple(fc.string({ maxLength: 70 }), fc.domain()).map(([user, host]) => `${user}@${host}`),
      // Near the limits: 64 before the @, 63 a label, 254 in all.
      fc
        .tuple(fc.nat({ max: 66 }), fc.nat({ max: 66 }), fc.nat({ max: 200 }))
        .map(([user, label, rest]) => `${'u'.repeat(user)}@${'d'.repeat(label)}.${'e'.repeat(rest)}.io`),
    );
    fc.assert(
      fc.property(text, (value) => {
        expect(isEmail(value)).toBe(reference(value));
      }),
      { numRuns: 5000 },
    );
  });

  it('is usable as a zod schema', () => {
    expect(emailSchema.safeParse('ada@example.com').success).toBe(true);
    const result = emailSchema.safeParse('bob@');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('expected an e-mail address');
  });
});
