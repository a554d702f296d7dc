import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { isEventShape, isUserShape } from './quick-shapes.js';
import { platformEventSchema, platformUserSchema } from './response-schemas.js';

/** Values of every JSON type, nested ones included, that a field may come back as. */
const VALUES: unknown[] = [
  undefined,
  null,
  '',
  'text',
  0,
  7,
  -3,
  1.5,
  2 ** 53,
  true,
  [],
  ['a', 'b'],
  [1, 2],
  [null],
  [{}],
  [{ tag_name: 'vip' }],
  [{ tag_name: 5 }],
  [{ id: 'x', event_id: 1, user_id: 2, speaker_type: 'host' }],
  [{ id: 1.5, event_id: 1.5 }],
  [{ id: true }],
  [[]],
  {},
  { a: 1 },
];

function sameVerdicts(
  schema: z.ZodObject,
  quick: (value: unknown) => boolean,
  base: Record<string, unknown>,
): void {
  const samples: unknown[] = [null, [], 'user', 3, base, { ...base, extra: { kept: true } }];
  for (const field of [...Object.keys(schema.shape), 'unknown_field']) {
    for (const value of VALUES) {
      const sample: Record<string, unknown> = { ...base };
      if (value === undefined) delete sample[field];
      else sample[field] = value;
      samples.push(sample);
    }
  }
  for (const sample of samples) {
    // Through JSON, as answers come: the quick check only ever sees parsed JSON.
    const json: unknown = sample === undefined ? undefined : JSON.parse(JSON.stringify(sample));
    const parsed = schema.safeParse(json);
    if (quick(json)) {
      // Accepted: the schema accepts it too and returns the very same data.
      expect(parsed.success, JSON.stringify(json)).toBe(true);
      expect(parsed.data).toEqual(json);
    }
  }
  // The plain answers a write gets back do take the quick path.
  expect(quick(base)).toBe(true);
}

describe('quick shape checks', () => {
  it('accept a user only when platformUserSchema does, and unchanged', () => {
    sameVerdicts(platformUserSchema, isUserShape, {
      id: 7,
      first_name: 'Ada',
      last_name: 'Lovelace',
      current_state: 'active',
      employee: { id: 9, position: 'Engineer', organization: 'Engines' },
      updated_on: '2026-11-29T13:26:42.375808Z',
      profile: { custom_data: {} },
      tags: [{ id: 1, tag_name: 'vip' }],
      content: null,
      icon_id: null,
      client_ids: ['b1'],
      phones: [],
      web_links: {},
      addresses: [{ city: 'London', country_code: 'GB', country_name: 'United Kingdom' }],
    });
  });

  it('accept an event only when platformEventSchema does, and unchanged', () => {
    sameVerdicts(platformEventSchema, isEventShape, {
      id: 12,
      name: 'Keynote',
      start: '2026-05-01T09:00:00Z',
      finish: '2026-05-01T10:00:00Z',
      parent_id: null,
      track: { id: 3 },
      updated_on: '2026-04-01T00:00:00Z',
      tags: [],
      content: '<p>Welcome</p>',
      icon_id: 4,
      client_ids: ['e1'],
      location: null,
      speakers: [{ id: 5, event_id: 12, user_id: 7, speaker_type: 'host' }],
      survey_id: null,
      hashtags: '#conf',
    });
  });

  it('leave every answer they refuse to the schema', () => {
    expect(isUserShape({ id: '7' })).toBe(false);
    expect(isUserShape({ id: 7, client_ids: null })).toBe(false);
    expect(isEventShape({ id: 1, speakers: [{ event_id: 'x' }] })).toBe(false);
  });
});
