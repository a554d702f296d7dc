import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import { rawCall, signedCall } from '../../helpers/signed-request.js';
import { SIGNING_KEY } from './sandbox-fixture.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox({
    signingKey: SIGNING_KEY,
    seed: {
      users: [
        {
          first_name: 'Seed',
          last_name: 'User',
          email: 'seed@example.org',
          client_ids: ['s1'],
          in_conference: true,
        },
      ],
      exhibitors: [{ name: 'Booth', client_ids: ['b1'] }],
      events: [
        { client_id: 'e1', name: 'Talk', start: '2026-06-01T09:00:00Z', finish: '2026-06-01T10:00:00Z' },
      ],
    },
  });
});
afterAll(() => sandbox.close());

const PATHS = [
  '/user',
  '/user/member',
  '/user/member/{id}',
  '/user/{id}',
  '/event',
  '/event/member',
  '/event/member/{id}',
  '/event/rsvp',
  '/event/rsvp/{id}',
  '/event/schedule',
  '/speaker',
  '/speaker/event',
  '/speaker/event/{id}',
  '/role/contacts',
  '/check_in',
  '/check_in/my',
  '/check_in/chatter',
  '/check_in/contacts',
  '/check_in/member/{id}',
  '/signature_test',
];
const NAMES = [
  'client_id',
  'id',
  'user_id',
  'exhibitor_id',
  'limit',
  'user_page',
  'event_page',
  'comment_page',
  'terms',
  'user[first_name]',
  'user[last_name]',
  'user[salutation]',
  'user[membership]',
  'user[svc_auth_attributes][email]',
  'user[account_attributes][addresses_attributes][0][city]',
  'user[account_attributes][addresses_attributes][0][country_code]',
  'user[account_attributes][profiles_attributes][0][custom_data]',
  'user[item_attributes][phones_attributes][0][work_number]',
  'user[item_attributes][article_attributes][content]',
  'user[item_attributes][tags_list]',
  'user[id]',
  'user[client_id]',
  'user[email]',
  'event[start]',
  'event[finish]',
  'event[track_id]',
  'event[track_name]',
  'event[max_attendees]',
  'event[item_attributes][display_value]',
  'event[item_attributes][article][content]',
  'event[speakers_attributes][0][user_client_id]',
  'event_client_ids[0]',
  'event_client_ids[x]',
  'speaker[user_id]',
  'speaker[user_client_id]',
  'speaker[type_name]',
  'check_in[mode]',
  'check_in[center]',
  'check_in[display_value]',
  'check_in[location_item][type]',
  'check_in[location_item][id]',
  'location_address[city]',
  'location[item_attributes][display_value]',
  'user',
  'user[]',
  '[x]',
  '__proto__[polluted]',
  'constructor',
];
const VALUES = fc.oneof(
  fc.constantFrom(
    '',
    '1',
    '2',
    '0',
    '-1',
    's1',
    'e1',
    'b1',
    'seed@example.org',
    '2026-06-01T09:00:00Z',
    'US',
    'exhibitor',
    'event',
    'user',
    'feature',
    '13.4,52.5',
    '{"a":1}',
    '<p>x</p>',
    '99999999999999999999',
    'NaN',
  ),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
);

describe('fuzz: signed random requests never make the sandbox fail', () => {
  it('answers every random request with a 2xx or a 4xx, and keeps serving', async () => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
        fc.constantFrom(...PATHS),
        fc.oneof(fc.constant('1'), fc.nat({ max: 40 }).map(String), fc.string({ maxLength: 6 })),
        fc.dictionary(fc.constantFrom(...NAMES), VALUES, { maxKeys: 6 }),
        fc.dictionary(fc.constantFrom(...NAMES), VALUES, { maxKeys: 6 }),
        async (method, pattern, id, query, body) => {
          const path = pattern.replace('{id}', encodeURIComponent(id) || '1');
          const answer = await signedCall(sandbox, method, path, {
            query: query,
            ...(method === 'GET' ? {} : { body: body }),
          });
          seen.add(answer.status);
          expect(answer.status, `${method} ${path} → ${answer.text}`).toBeLessThan(500);
          if (answer.status >= 400)
            expect(answer.json<{ error: string }>().error).toEqual(expect.any(String));
        },
      ),
      { numRuns: 250 },
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect([...seen].some((status) => status < 300)).toBe(true);
    expect([...seen].some((status) => status === 422)).toBe(true);
  });

  it('answers random raw bytes in the query and body with a 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 60 }).map((text) => text.replace(/[#\s]/g, '')),
        fc.uint8Array({ maxLength: 200 }),
        async (query, bytes) => {
          const answer = await rawCall(sandbox.url, 'POST', `/user?${encodeURI(query)}`, {
            body: Buffer.from(bytes),
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          });
          expect(answer.status).toBeGreaterThanOrEqual(400);
          expect(answer.status).toBeLessThan(500);
        },
      ),
      { numRuns: 120 },
    );
    expect((await signedCall(sandbox, 'GET', '/user')).status).toBe(200);
  });
});
