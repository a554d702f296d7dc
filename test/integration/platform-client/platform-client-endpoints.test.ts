import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  chatterPost,
  checkInAtCoordinate,
  checkInAtObject,
} from '../../../src/platform/write-params/check-in-params.js';
import { scheduleParams } from '../../../src/platform/events-api.js';
import { PlatformClient } from '../../../src/platform/platform-client.js';
import { PlatformResponseError } from '../../../src/platform/platform-error.js';
import type { PlatformTestServer, SeenRequest } from '../../helpers/platform-test-server.js';
import { startPlatformTestServer } from '../../helpers/platform-test-server.js';

const KEY = 'endpoints-key';
let server: PlatformTestServer;
let client: PlatformClient;

const userJson = {
  id: 1,
  first_name: 'Ada',
  last_name: 'Lovelace',
  client_ids: ['u-1'],
  unexpected: { kept: true },
};
const eventJson = {
  id: 2,
  name: 'Keynote',
  start: '2026-05-01T09:00:00.000000Z',
  client_ids: ['e-1'],
  speakers: [],
};
const checkInJson = {
  id: 3,
  display_value: 'Hall A',
  created_at: { json_class: 'Time', s: 1, n: 0 },
  type: 'check_in',
};

/** A server that answers each path with a plausible §2 body. */
function plausible(request: SeenRequest) {
  const { method, path } = request;
  if (path === '/signature_test') return { json: { signature_valid: request.signatureValid, problem: null } };
  if (path.startsWith('/check_in')) {
    if (method === 'GET' && !path.includes('member') && path !== '/check_in/contacts') {
      return { json: request.query.comment_page === '1' ? [checkInJson] : [] };
    }
    return { json: path === '/check_in/contacts' ? [checkInJson] : checkInJson };
  }
  if (path === '/event/schedule') return { json: [{ id: 2, client_ids: ['e-1'] }] };
  if (path.startsWith('/event/rsvp') || path.startsWith('/role/contacts') || method === 'DELETE') {
    return method === 'GET' ? { json: [{ id: 9, user_id: 1 }] } : { status: 200, text: '' };
  }
  if (path.startsWith('/speaker')) {
    if (method !== 'GET') return { json: { ok: true } };
    return { json: request.query.speaker_page === '1' ? [userJson] : [] };
  }
  if (path.startsWith('/event')) {
    if (method === 'GET' && path === '/event')
      return { json: request.query.event_page === '1' ? [eventJson] : [] };
    return { json: eventJson };
  }
  if (method === 'GET' && path === '/user') {
    return {
      json:
        Number(request.query.user_page) <= 2 ? [{ ...userJson, id: Number(request.query.user_page) }] : [],
    };
  }
  return { json: userJson };
}

beforeAll(async () => {
  server = await startPlatformTestServer(KEY);
  server.handle(plausible);
  client = new PlatformClient({
    baseUrl: server.url,
    keyId: 5,
    signingKey: KEY,
    vendor: 'zerista',
    rateLimit: { requestsPerSecond: 1000, burst: 100 },
  });
});
afterEach(() => {
  server.requests.length = 0;
  server.handle(plausible);
});
afterAll(async () => {
  await client.close();
  await server.close();
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Drops the signing params to compare the rest. */
function call(request: SeenRequest | undefined) {
  const { key_id: _k, sig: _s, format, ...query } = request?.query ?? {};
  return {
    method: request?.method,
    path: request?.path,
    query,
    body: request?.body,
    format,
    valid: request?.signatureValid,
  };
}

describe('every endpoint of §4 on the wire', () => {
  it.each([
    ['users.get by id', () => client.users.get(1), 'GET', '/user/member/1', {}, {}],
    [
      'users.get by client_id',
      () => client.users.get({ clientId: 'u-1' }),
      'GET',
      '/user/member',
      { client_id: 'u-1' },
      {},
    ],
    [
      'users.getByEmail uses the vendor word',
      () => client.users.getByEmail('ada@example.com'),
      'GET',
      '/user/member',
      { 'user[zerista_auth_attributes][email]': 'ada@example.com' },
      {},
    ],
    [
      'users.create',
      () => client.users.create({ 'user[first_name]': 'Ada' }),
      'POST',
      '/user',
      {},
      { 'user[first_name]': 'Ada' },
    ],
    [
      'users.update',
      () => client.users.update({ id: 1 }, { 'user[last_name]': 'L' }),
      'PUT',
      '/user/member/1',
      {},
      { 'user[last_name]': 'L' },
    ],
    [
      'users.delete by client_id',
      () => client.users.delete({ clientId: 'u-1' }),
      'DELETE',
      '/user/member',
      {},
      { client_id: 'u-1' },
    ],
    ['events.get', () => client.events.get(2), 'GET', '/event/member/2', {}, {}],
    [
      'events.create',
      () => client.events.create({ client_id: 'e-1' }),
      'POST',
      '/event',
      {},
      { client_id: 'e-1' },
    ],
    [
      'events.update by client_id',
      () => client.events.update({ clientId: 'e-1' }, { 'event[start]': 'x' }),
      'PUT',
      '/event/member',
      {},
      { 'event[start]': 'x', client_id: 'e-1' },
    ],
    ['events.delete', () => client.events.delete(2), 'DELETE', '/event/member/2', {}, {}],
    [
      'events.rsvpAdd',
      () => client.events.rsvpAdd({ clientId: 'e-1' }, { 'user[client_id]': 'u-1' }),
      'POST',
      '/event/rsvp',
      {},
      { 'user[client_id]': 'u-1', client_id: 'e-1' },
    ],
    [
      'events.rsvpRemove',
      () => client.events.rsvpRemove(2, { 'user[id]': '1' }),
      'DELETE',
      '/event/rsvp/2',
      {},
      { 'user[id]': '1' },
    ],
    [
      'events.replaceSchedule',
      () => client.events.replaceSchedule(scheduleParams({ clientId: 'u-1' }, ['e-1', 'e-2'])),
      'PUT',
      '/event/schedule',
      {},
      { 'user[client_id]': 'u-1', 'event_client_ids[0]': 'e-1', 'event_client_ids[1]': 'e-2' },
    ],
    [
      'speakers.add',
      () => client.speakers.add({ clientId: 'e-1' }, { 'speaker[user_client_id]': 'u-1' }),
      'POST',
      '/speaker/event',
      {},
      { 'speaker[user_client_id]': 'u-1', client_id: 'e-1' },
    ],
    [
      'speakers.remove',
      () => client.speakers.remove(2, { 'speaker[user_id]': '1' }),
      'DELETE',
      '/speaker/event/2',
      {},
      { 'speaker[user_id]': '1' },
    ],
    [
      'contacts.list',
      () => client.contacts.list({ client_id: 'u-1' }),
      'GET',
      '/role/contacts',
      { client_id: 'u-1' },
      {},
    ],
    [
      'contacts.add',
      () => client.contacts.add({ client_id: 'u-1', user_id: '7' }),
      'POST',
      '/role/contacts',
      {},
      { client_id: 'u-1', user_id: '7' },
    ],
    [
      'contacts.remove',
      () => client.contacts.remove({ exhibitor_id: '8' }),
      'DELETE',
      '/role/contacts',
      {},
      { exhibitor_id: '8' },
    ],
    ['checkIns.contacts', () => client.checkIns.contacts(), 'GET', '/check_in/contacts', {}, {}],
    ['checkIns.get', () => client.checkIns.get(3), 'GET', '/check_in/member/3', {}, {}],
    [
      'checkIns.create at a coordinate',
      () => client.checkIns.create(checkInAtCoordinate({ longitude: 13.4, latitude: 52.5 })),
      'POST',
      '/check_in',
      {},
      { 'check_in[mode]': '1', 'check_in[center]': '13.4,52.5' },
    ],
    [
      'checkIns.create at an object for a user',
      () => client.checkIns.create(checkInAtObject({ type: 'event', id: 2, actor: { userClientId: 'u-1' } })),
      'POST',
      '/check_in',
      {},
      {
        'check_in[mode]': '1',
        'check_in[location_item][type]': 'event',
        'check_in[location_item][id]': '2',
        client_id: 'u-1',
      },
    ],
    [
      'checkIns.create chatter',
      () => client.checkIns.create(chatterPost({ text: 'Hello & welcome', postToTwitter: true })),
      'POST',
      '/check_in',
      {},
      { 'check_in[mode]': '2', 'check_in[display_value]': 'Hello & welcome', post_to_twitter: '1' },
    ],
  ] as const)('%s', async (_name, run, method, path, query, body) => {
    await run();
    expect(server.requests).toHaveLength(1);
    expect(call(server.requests[0])).toEqual({ method, path, query, body, format: 'json', valid: true });
  });
});

describe('parsed responses', () => {
  it('keeps unknown fields and reads §2 shapes', async () => {
    const user = await client.users.get(1);
    expect(user).toMatchObject({ id: 1, client_ids: ['u-1'], unexpected: { kept: true } });
    const entries = await client.events.replaceSchedule(scheduleParams({ id: 1 }, []));
    expect(entries).toEqual([{ id: 2, client_ids: ['e-1'] }]);
    const checkIn = await client.checkIns.get(3);
    expect(checkIn.created_at).toEqual({ json_class: 'Time', s: 1, n: 0 });
    await expect(client.users.delete(1)).resolves.toBeUndefined();
  });

  it('a success body of the wrong shape is a typed, permanent error', async () => {
    server.handle(() => ({ json: { name: 'no id' } }));
    await expect(client.users.get(1)).rejects.toMatchObject({
      code: 'EVSYNC_PLATFORM_BAD_RESPONSE',
      retryable: false,
    });
    server.handle(() => ({ text: '<html>login</html>' }));
    const error = await client.users.get(1).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PlatformResponseError);
    expect((error as Error).message).toMatch(/not JSON.*EVSYNC_BASE_URL/);
  });

  it('an update carrying a password is refused before sending, unless allowed', async () => {
    const params = { 'user[zerista_auth_attributes][password]': 's3cret-value', 'user[first_name]': 'A' };
    const error = await client.users.update(1, params).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'EVSYNC_PLATFORM_PASSWORD_IN_UPDATE', retryable: false });
    expect((error as Error).message).not.toContain('s3cret-value');
    expect(server.requests).toHaveLength(0);
    await client.users.update(1, params, { allowPasswordChange: true });
    expect(server.requests[0]?.body['user[zerista_auth_attributes][password]']).toBe('s3cret-value');
  });

  it('getByEmail answers undefined on 404', async () => {
    server.handle(() => ({ status: 404, json: { error: 'Not found' } }));
    await expect(client.users.getByEmail('nobody@example.com')).resolves.toBeUndefined();
  });

  it('signatureTest reports the verdict', async () => {
    await expect(client.signatureTest()).resolves.toMatchObject({ status: 200, valid: true });
    await expect(client.signatureTest({ method: 'PUT', body: { a: 'b' } })).resolves.toMatchObject({
      valid: true,
    });
    expect(server.requests.map((r) => r.method)).toEqual(['GET', 'PUT']);
  });
});

describe('lists read pages until an empty one', () => {
  it('users.list pages with user_page and limit', async () => {
    const users = await collect(client.users.list({ limit: 100, terms: 'ada' }));
    expect(users.map((u) => u.id)).toEqual([1, 2]);
    expect(server.requests.map((r) => [r.query.user_page, r.query.limit, r.query.terms])).toEqual([
      ['1', '100', 'ada'],
      ['2', '100', 'ada'],
      ['3', '100', 'ada'],
    ]);
  });

  it.each([
    ['events.list', () => client.events.list(), 'event_page', '/event'],
    ['speakers.list', () => client.speakers.list(), 'speaker_page', '/speaker'],
    ['speakers.listForEvent', () => client.speakers.listForEvent(2), 'speaker_page', '/speaker/event/2'],
    ['checkIns.my', () => client.checkIns.my(), 'comment_page', '/check_in/my'],
    ['checkIns.chatter', () => client.checkIns.chatter(), 'comment_page', '/check_in/chatter'],
  ] as const)('%s', async (_name, list, pageParam, path) => {
    const items = await collect(list());
    expect(items).toHaveLength(1);
    expect(server.requests.map((r) => [r.path, r.query[pageParam]])).toEqual([
      [path, '1'],
      [path, '2'],
    ]);
  });

  it('stops with an error when the platform ignores the page param', async () => {
    server.handle(() => ({ json: [userJson] }));
    await expect(collect(client.users.list())).rejects.toThrow(/ignore user_page/);
    expect(server.requests).toHaveLength(2);
  });

  it('refuses a limit above 100 before calling', async () => {
    await expect(collect(client.users.list({ limit: 101 }))).rejects.toThrow(RangeError);
    expect(server.requests).toHaveLength(0);
  });

  it('a consumer may stop early: no further pages are read', async () => {
    for await (const user of client.users.list()) {
      expect(user.id).toBe(1);
      break;
    }
    expect(server.requests).toHaveLength(1);
  });
});
