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

  it('is usable as a zod schema', () => {
    expect(emailSchema.safeParse('ada@example.com').success).toBe(true);
    const result = emailSchema.safeParse('bob@');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('expected an e-mail address');
  });
});
