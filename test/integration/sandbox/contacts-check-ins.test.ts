import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformHttpError } from '../../../src/platform/platform-error.js';
import type { PlatformClient } from '../../../src/platform/platform-client.js';
import type { RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import { signedCall } from '../../helpers/signed-request.js';
import { collect, eventParams, failure, sandboxWithClient, userParams } from './sandbox-fixture.js';

let sandbox: RunningSandbox;
let client: PlatformClient;
let close: () => Promise<void>;
let exhibitorId: number;
let featureId: number;

beforeAll(async () => {
  ({ sandbox, client, close } = await sandboxWithClient({
    seed: {
      exhibitors: [{ name: 'Acme Robotics', client_ids: ['acme'] }],
      features: [{ name: 'Hall A', lat: 52.52, lng: 13.4 }],
    },
  }));
  exhibitorId = [...sandbox.state.exhibitors.values()][0]!.id;
  featureId = [...sandbox.state.features.values()].find((feature) => feature.name === 'Hall A')!.id;
});
afterAll(() => close());

describe('contacts', () => {
  it('adds, lists and removes users and exhibitors, for a user named by client_id', async () => {
    const owner = userParams();
    await client.users.create(owner);
    const friend = await client.users.create(
      userParams({ 'user[first_name]': 'Fran', 'user[last_name]': 'Friend' }),
    );
    const who = { client_id: owner.client_id! };
    await client.contacts.add({ ...who, user_id: String(friend.user.id) });
    await client.contacts.add({ ...who, exhibitor_id: String(exhibitorId) });
    await client.contacts.add({ ...who, exhibitor_id: String(exhibitorId) });
    expect(await client.contacts.list(who)).toEqual([
      { type: 'user', id: friend.user.id, name: 'Fran Friend', client_ids: friend.user.client_ids },
      { type: 'exhibitor', id: exhibitorId, name: 'Acme Robotics', client_ids: ['acme'] },
    ]);
    await client.contacts.remove({ ...who, exhibitor_id: String(exhibitorId) });
    expect((await client.contacts.list(who)).map((contact) => contact.type)).toEqual(['user']);
    const notThere = (await failure(() =>
      client.contacts.remove({ ...who, exhibitor_id: String(exhibitorId) }),
    )) as PlatformHttpError;
    expect(notThere.status).toBe(404);
  });

  it('answers 422 for a missing or unknown contact and 404 for an unknown owner', async () => {
    const neither = await signedCall(sandbox, 'POST', '/role/contacts', { body: {} });
    expect(neither.status).toBe(422);
    const unknown = await signedCall(sandbox, 'POST', '/role/contacts', { body: { user_id: '99999999' } });
    expect(unknown.status).toBe(422);
    expect(unknown.json<{ errors: object }>().errors).toHaveProperty('user_id');
    const owner = await signedCall(sandbox, 'GET', '/role/contacts', { query: { client_id: 'ghost' } });
    expect(owner.status).toBe(404);
  });
});

describe('check-ins', () => {
  it('mode 1 at a coordinate: §2.2 shape with time objects and type members', async () => {
    const checkIn = await client.checkIns.create({
      'check_in[mode]': '1',
      'check_in[center]': '13.4050,52.5200',
      'check_in[display_value]': 'Brandenburg Gate',
    });
    expect(checkIn).toMatchObject({
      display_value: 'Brandenburg Gate',
      mode: 'check_in',
      type: 'check_in',
      created_at: { json_class: 'Time', s: expect.any(Number), n: expect.any(Number) },
      user: {
        id: sandbox.state.adminUserId,
        type: 'user',
        account: { type: 'account' },
        item: { type: 'item' },
      },
      location: { type: 'feature', latlng: { lat: 52.52, lng: 13.405 }, name: 'Brandenburg Gate' },
    });
    const geometry = (checkIn.location as { geometries: Array<{ geom: string; type: string }> })
      .geometries[0]!;
    expect(geometry.type).toBe('geometry');
    expect(geometry.geom).toMatch(/^0101000000[0-9A-F]{32}$/);
    expect(await client.checkIns.get(checkIn.id)).toEqual(checkIn);
    expect((await collect(client.checkIns.my())).map((item) => item.id)).toContain(checkIn.id);
  });

  it('mode 1 at an object of each kind, for a user named by id or client_id', async () => {
    const params = userParams();
    const { user } = await client.users.create(params);
    const event = await client.events.create(eventParams());
    for (const [type, id] of [
      ['exhibitor', exhibitorId],
      ['feature', featureId],
      ['event', event.id],
      ['user', user.id],
    ] as const) {
      const checkIn = await client.checkIns.create({
        'check_in[mode]': '1',
        'check_in[location_item][type]': type,
        'check_in[location_item][id]': String(id),
        client_id: params.client_id!,
      });
      expect(checkIn.user).toMatchObject({ id: user.id });
      expect(checkIn.location).toMatchObject({ id });
    }
    const byId = await client.checkIns.create({
      'check_in[mode]': '1',
      'check_in[location_item][type]': 'feature',
      'check_in[location_item][id]': String(featureId),
      id: String(user.id),
    });
    expect(byId.location).toMatchObject({ name: 'Hall A', latlng: { lat: 52.52, lng: 13.4 } });
    const missing = (await failure(() =>
      client.checkIns.create({
        'check_in[mode]': '1',
        'check_in[location_item][type]': 'event',
        'check_in[location_item][id]': '99999999',
      }),
    )) as PlatformHttpError;
    expect(missing.status).toBe(422);
    expect(missing.paramErrors).toHaveProperty(['check_in[location_item][id]']);
  });

  it('mode 2 chatter: the conference when no item (rule 1); both type and id or neither (rule 2)', async () => {
    const post = await client.checkIns.create({
      'check_in[mode]': '2',
      'check_in[display_value]': 'Hello all',
    });
    expect(post).toMatchObject({ mode: 'chatter', location: { id: sandbox.state.conferenceFeatureId } });
    const half = (await failure(() =>
      client.checkIns.create({
        'check_in[mode]': '2',
        'check_in[display_value]': 'Hi',
        'check_in[location_item][type]': 'event',
      }),
    )) as PlatformHttpError;
    expect(half.status).toBe(422);
    expect(half.paramErrors).toHaveProperty(['check_in[location_item][id]']);
    const html = (await failure(() =>
      client.checkIns.create({ 'check_in[mode]': '2', 'check_in[display_value]': '<b>loud</b>' }),
    )) as PlatformHttpError;
    expect(html.paramErrors).toHaveProperty(['check_in[display_value]']);
    const noText = (await failure(() =>
      client.checkIns.create({ 'check_in[mode]': '2' }),
    )) as PlatformHttpError;
    expect(noText.paramErrors).toHaveProperty(['check_in[display_value]']);
    const chatter = await collect(client.checkIns.chatter());
    expect(chatter[0]?.id).toBe(post.id);
    expect(chatter.every((item) => item.mode === 'chatter')).toBe(true);
  });

  it('lists the latest check-in of each contact of the key owner', async () => {
    const params = userParams();
    const { user } = await client.users.create(params);
    await client.contacts.add({ user_id: String(user.id) });
    const chatter = { 'check_in[mode]': '2', client_id: params.client_id! };
    await client.checkIns.create({ ...chatter, 'check_in[display_value]': 'first' });
    const latest = await client.checkIns.create({ ...chatter, 'check_in[display_value]': 'second' });
    const contacts = await client.checkIns.contacts();
    expect(contacts.map((item) => item.id)).toEqual([latest.id]);
  });

  it('pages with comment_page and limit (default 20), and serves XML', async () => {
    for (let i = 0; i < 22; i += 1) {
      await client.checkIns.create({ 'check_in[mode]': '2', 'check_in[display_value]': `post ${i}` });
    }
    expect((await signedCall(sandbox, 'GET', '/check_in/chatter')).json<unknown[]>()).toHaveLength(20);
    const second = await signedCall(sandbox, 'GET', '/check_in/chatter', {
      query: { comment_page: '2', limit: '20' },
    });
    expect(second.json<unknown[]>().length).toBeGreaterThan(0);
    expect(
      (await signedCall(sandbox, 'GET', '/check_in/chatter', { query: { comment_page: '99' } })).json(),
    ).toEqual([]);
    const xml = await signedCall(sandbox, 'GET', '/check_in/chatter', {
      query: { format: 'xml', limit: '1' },
    });
    expect(xml.text).toMatch(/<check-ins type="array"><check-in><id type="integer">\d+<\/id>/);
    expect(xml.text).toMatch(
      /<created-at type="datetime">\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z<\/created-at>/,
    );
    expect(xml.text).toContain('<rating nil="true"/>');
    const one = await signedCall(sandbox, 'GET', '/check_in/member/999999999');
    expect(one.status).toBe(404);
  });
});
