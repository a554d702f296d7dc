import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformHttpError } from '../../../src/platform/platform-error.js';
import type { PlatformClient } from '../../../src/platform/platform-client.js';
import type { RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import { signedCall } from '../../helpers/signed-request.js';
import { collect, eventParams, failure, sandboxWithClient, userParams } from './sandbox-fixture.js';

const ISO_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

let sandbox: RunningSandbox;
let client: PlatformClient;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ sandbox, client, close } = await sandboxWithClient({
    seed: { exhibitors: [{ name: 'Acme', client_ids: ['acme'] }], tracks: [{ name: 'Seeded track' }] },
  }));
});
afterAll(() => close());

describe('events', () => {
  it('creates an event (200, one object) with times in UTC and microseconds', async () => {
    const params = eventParams({
      'event[start]': '2026-06-01T09:00:00.250+02:00',
      'event[item_attributes][tags_list]': 'ai, ethics',
      'event[track_name]': 'Main stage',
      'event[max_attendees]': '120',
      'event[exhibitor_client_id]': 'acme',
      'location[item_attributes][display_value]': 'Room 1',
    });
    const event = await client.events.create(params);
    expect(event).toMatchObject({
      name: params['event[item_attributes][display_value]'],
      content: '<p>About it</p>',
      start: '2026-06-01T07:00:00.250000Z',
      finish: '2026-06-01T08:00:00.000000Z',
      client_ids: [params.client_id],
      track: { name: 'Main stage', position: 2 },
      location: { name: 'Room 1' },
      speakers: [],
      hashtags: '',
      parent_id: null,
    });
    expect(event.updated_on).toMatch(ISO_MICROS);
    expect(event.tags?.map((tag) => tag.tag_name)).toEqual(['ai', 'ethics']);
    expect(await client.events.get(event.id)).toEqual(event);
    expect(await client.events.get({ clientId: params.client_id! })).toEqual(event);
  });

  it('refuses a taken client_id with the conventional message', async () => {
    const params = eventParams();
    await client.events.create(params);
    const again = (await failure(() => client.events.create(params))) as PlatformHttpError;
    expect(again.status).toBe(422);
    expect(again.platformMessage).toBe('Event with that client_id already exists.');
    expect(sandbox.counters.createsOf('event', params.client_id!)).toBe(1);
  });

  it('updates by id and by client_id (PUT /event?client_id=X); fields not sent stay', async () => {
    const params = eventParams();
    const event = await client.events.create(params);
    const renamed = await client.events.update(event.id, {
      'event[item_attributes][display_value]': 'Renamed',
    });
    expect(renamed).toMatchObject({ name: 'Renamed', content: '<p>About it</p>', start: event.start });
    const viaQuery = await signedCall(sandbox, 'PUT', '/event', {
      query: { client_id: params.client_id! },
      body: { 'event[finish]': '2026-06-01T11:30:00Z' },
    });
    expect(viaQuery.status).toBe(200);
    expect(viaQuery.json<{ finish: string; name: string }>()).toMatchObject({
      finish: '2026-06-01T11:30:00.000000Z',
      name: 'Renamed',
    });
  });

  it('checks finish against the stored start on update, and both in one request', async () => {
    const event = await client.events.create(eventParams());
    const early = (await failure(() =>
      client.events.update(event.id, { 'event[finish]': '2026-06-01T06:00:00Z' }),
    )) as PlatformHttpError;
    expect(early.status).toBe(422);
    expect(Object.keys(early.paramErrors)).toEqual(['event[finish]']);
    const both = (await failure(() =>
      client.events.create(eventParams({ 'event[finish]': '2026-06-01T08:00:00+02:00' })),
    )) as PlatformHttpError;
    expect(both.status).toBe(422);
    expect(both.paramErrors).toHaveProperty(['event[finish]']);
  });

  it('names every invalid param of a create in one 422', async () => {
    const answer = await signedCall(sandbox, 'POST', '/event', {
      body: {
        'event[item_attributes][article][content]': '<p>unclosed',
        'event[start]': 'tomorrow',
        'event[finish]': '2026-06-01T10:00:00Z',
        'event[track_id]': '1',
        'event[track_name]': 'Both',
      },
    });
    expect(answer.status).toBe(422);
    const body = answer.json<{ error: string; errors: Record<string, string[]> }>();
    expect(Object.keys(body.errors)).toEqual(
      expect.arrayContaining([
        'event[item_attributes][display_value]',
        'event[item_attributes][article][content]',
        'event[start]',
      ]),
    );
    expect(JSON.stringify(body.errors)).toContain('track');
  });

  it('checks referenced tracks, exhibitors and speakers exist (422 naming the param)', async () => {
    const track = await signedCall(sandbox, 'POST', '/event', {
      body: eventParams({ 'event[track_id]': '999999' }),
    });
    expect(track.status).toBe(422);
    expect(track.json<{ errors: object }>().errors).toHaveProperty(['event[track_id]']);
    const exhibitor = await signedCall(sandbox, 'POST', '/event', {
      body: eventParams({ 'event[exhibitor_client_id]': 'nope' }),
    });
    expect(exhibitor.json<{ errors: object }>().errors).toHaveProperty(['event[exhibitor_client_id]']);
    const speaker = await signedCall(sandbox, 'POST', '/event', {
      body: eventParams({ 'event[speakers_attributes][0][user_client_id]': 'ghost' }),
    });
    expect(speaker.json<{ errors: object }>().errors).toHaveProperty([
      'event[speakers_attributes][0][user_client_id]',
    ]);
  });

  it('sets speakers through speakers_attributes, and a blank track disconnects it', async () => {
    const user = await client.users.create(userParams());
    const seededTrack = [...sandbox.state.tracks.values()].find((track) => track.name === 'Seeded track')!;
    const event = await client.events.create(
      eventParams({
        'event[track_id]': String(seededTrack.id),
        'event[speakers_attributes][0][user_client_id]': user.user.client_ids![0]!,
        'event[speakers_attributes][0][type_name]': 'moderator',
      }),
    );
    expect(event.track).toMatchObject({ id: seededTrack.id, name: 'Seeded track', color: '#1f77b4' });
    expect(event.speakers).toEqual([
      {
        id: `${event.id}.${user.user.id}`,
        event_id: event.id,
        user_id: user.user.id,
        speaker_type: 'Moderator',
      },
    ]);
    const untracked = await client.events.update(event.id, { 'event[track_id]': '' });
    expect(untracked.track).toBeNull();
    expect(untracked.speakers).toHaveLength(1);
  });

  it('deletes (200) by id and by client_id; then 404', async () => {
    const a = await client.events.create(eventParams());
    await client.events.delete(a.id);
    expect(((await failure(() => client.events.get(a.id))) as PlatformHttpError).status).toBe(404);
    const params = eventParams();
    await client.events.create(params);
    const byClient = await signedCall(sandbox, 'DELETE', '/event', {
      query: { client_id: params.client_id! },
    });
    expect(byClient.status).toBe(200);
    // The client_id is free again once its event is gone.
    await client.events.create(params);
  });

  it('lists with event_page and limit (default 50), bare arrays, empty past the end', async () => {
    for (let i = 0; i < 55; i += 1) await client.events.create(eventParams());
    const total = sandbox.state.events.size;
    expect((await signedCall(sandbox, 'GET', '/event')).json<unknown[]>()).toHaveLength(50);
    const last = Math.ceil(total / 50);
    expect(
      (await signedCall(sandbox, 'GET', '/event', { query: { event_page: String(last + 1) } })).json(),
    ).toEqual([]);
    expect(await collect(client.events.list({ limit: 100 }))).toHaveLength(total);
  });
});
