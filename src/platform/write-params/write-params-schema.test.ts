import { describe, expect, it } from 'vitest';

import { writeParamsSchema } from './write-params-schema.js';

describe('writeParamsSchema', () => {
  const schema = writeParamsSchema('rsvp.add', { vendor: 'svc' });

  it('passes valid params through', () => {
    const params = { client_id: 's-1', 'user[client_id]': 'u-1' };
    expect(schema.parse(params)).toEqual(params);
  });

  it('turns every issue into a zod issue at the param', () => {
    const result = schema.safeParse({ 'user[email]': 'bob@' });
    expect(
      result.error?.issues.map((i) => [i.path, i.message, 'params' in i ? i.params : undefined]),
    ).toEqual([
      [
        ['client_id'],
        'the client_id of the event (or its id in the path) is required, but it is missing',
        { code: 'REQUIRED' },
      ],
      [['user[email]'], '"bob@" is not an e-mail address', { code: 'INVALID_EMAIL' }],
    ]);
  });

  it('refuses values that are not strings', () => {
    expect(schema.safeParse({ client_id: 5 }).success).toBe(false);
  });
});
