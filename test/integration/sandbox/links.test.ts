import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleParams } from '../../../src/platform/events-api.js';
import type { PlatformHttpError } from '../../../src/platform/platform-error.js';
import type { PlatformClient } from '../../../src/platform/platform-client.js';
import type { PlatformEvent, PlatformUser } from '../../../src/platform/response-schemas.js';
import type { RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import { signedCall } from '../../helpers/signed-request.js';
import { collect, eventParams, failure, sandboxWithClient, userParams } from './sandbox-fixture.js';

let sandbox: RunningSandbox;
let client: PlatformClient;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ sandbox, client, close } = await sandboxWithClient());
});
afterAll(() => close());

async function newUser(): Promise<PlatformUser & { clientId: string; email: string }> {
  const params = userParams();
  const { user } = await client.users.create(params);
  return { ...user, clientId: params.client_id!, email: params['user[svc_auth_attributes][email]']! };
}

async function newEvent(): Promise<PlatformEvent & { clientId: string }> {
  const params = eventParams();
  return { ...(await client.events.create(params)), clientId: params.client_id! };
}

describe('speakers', () => {
  it('adds by user id or user client_id, with the event by id or by client_id', async () => {
    const [alice, bob] = [await newUser(), await newUser()];
    const event = await newEvent();
    const added = await client.speakers.add(event.id, { 'speaker[user_id]': String(alice.id) });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({
      id: `${event.id}.${alice.id}`,
      event_id: event.id,
      user_id: alice.id,
      speaker_type: 'Speaker',
    });
    await client.speakers.add(
      { clientId: event.clientId },
      { 'speaker[user_client_id]': bob.clientId, 'speaker[type_name]': 'chair' },
    );
    const speakers = await collect(client.speakers.listForEvent(event.id));
    expect(speakers.map((user) => user.id)).toEqual([alice.id, bob.id]);
    expect((await client.events.get(event.id)).speakers?.map((link) => link.speaker_type)).toEqual([
      'Speaker',
      'Chair',
    ]);
    const conference = await collect(client.speakers.list());
    expect(conference.map((user) => user.id)).toEqual(expect.arrayContaining([alice.id, bob.id]));
  });

  it('enforces exactly one of speaker[user_id] and speaker[user_client_id]', async () => {
    const [user, event] = [await newUser(), await newEvent()];
    const both = (await failure(() =>
      client.speakers.add(event.id, {
        'speaker[user_id]': String(user.id),
        'speaker[user_client_id]': user.clientId,
      }),
    )) as PlatformHttpError;
    expect(both.status).toBe(422);
    const neither = (await failure(() => client.speakers.add(event.id, {}))) as PlatformHttpError;
    expect(neither.status).toBe(422);
    const badType = (await failure(() =>
      client.speakers.add(event.id, { 'speaker[user_id]': String(user.id), 'speaker[type_name]': 'king' }),
    )) as PlatformHttpError;
    expect(badType.paramErrors).toHaveProperty(['speaker[type_name]']);
    const ghost = (await failure(() =>
      client.speakers.add(event.id, { 'speaker[user_client_id]': 'ghost' }),
    )) as PlatformHttpError;
    expect(ghost.status).toBe(422);
    expect(ghost.paramErrors).toHaveProperty(['speaker[user_client_id]']);
  });

  it('removes a speaker; removing one who is not there is 404; an unknown event is 404', async () => {
    const [user, event] = [await newUser(), await newEvent()];
    await client.speakers.add(event.id, { 'speaker[user_id]': String(user.id) });
    const removed = await client.speakers.remove(
      { clientId: event.clientId },
      { 'speaker[user_id]': String(user.id) },
    );
    expect(removed.status).toBe(200);
    expect(await collect(client.speakers.listForEvent(event.id))).toEqual([]);
    const again = (await failure(() =>
      client.speakers.remove(event.id, { 'speaker[user_id]': String(user.id) }),
    )) as PlatformHttpError;
    expect(again.status).toBe(404);
    const noEvent = await signedCall(sandbox, 'POST', '/speaker/event/99999999', {
      body: { 'speaker[user_id]': String(user.id) },
    });
    expect(noEvent.status).toBe(404);
  });
});

describe('schedules', () => {
  it('RSVP adds and removes by user[id], user[client_id] and user[email]; answers the schedule', async () => {
    const user = await newUser();
    const [a, b, c] = [await newEvent(), await newEvent(), await newEvent()];
    await client.events.rsvpAdd({ clientId: a.clientId }, { 'user[id]': String(user.id) });
    await client.events.rsvpAdd(b.id, { 'user[client_id]': user.clientId });
    const added = await client.events.rsvpAdd({ clientId: c.clientId }, { 'user[email]': user.email });
    expect(added.body).toEqual([
      { id: a.id, client_ids: [a.clientId] },
      { id: b.id, client_ids: [b.clientId] },
      { id: c.id, client_ids: [c.clientId] },
    ]);
    // Adding twice keeps one entry.
    await client.events.rsvpAdd(a.id, { 'user[id]': String(user.id) });
    const removed = await client.events.rsvpRemove({ clientId: b.clientId }, { 'user[email]': user.email });
    expect((removed.body as Array<{ id: number }>).map((entry) => entry.id)).toEqual([a.id, c.id]);
    const unknownUser = (await failure(() =>
      client.events.rsvpAdd(a.id, { 'user[client_id]': 'ghost' }),
    )) as PlatformHttpError;
    expect(unknownUser.status).toBe(422);
    expect(unknownUser.paramErrors).toHaveProperty(['user[client_id]']);
    const noUser = (await failure(() => client.events.rsvpAdd(a.id, {}))) as PlatformHttpError;
    expect(noUser.status).toBe(422);
  });

  it('replaces the whole schedule and answers §2.6 entries', async () => {
    const user = await newUser();
    const [a, b, c] = [await newEvent(), await newEvent(), await newEvent()];
    await client.events.rsvpAdd(a.id, { 'user[id]': String(user.id) });
    const entries = await client.events.replaceSchedule(
      scheduleParams({ clientId: user.clientId }, [c.clientId, b.clientId]),
    );
    expect(entries).toEqual([
      { id: c.id, client_ids: [c.clientId] },
      { id: b.id, client_ids: [b.clientId] },
    ]);
    const same = await client.events.replaceSchedule(
      scheduleParams({ id: user.id }, [c.clientId, b.clientId]),
    );
    expect(same).toEqual(entries);
    const cleared = await client.events.replaceSchedule(scheduleParams({ id: user.id }, []));
    expect(cleared).toEqual([]);
    const unknown = (await failure(() =>
      client.events.replaceSchedule(scheduleParams({ id: user.id }, [a.clientId, 'nope'])),
    )) as PlatformHttpError;
    expect(unknown.status).toBe(422);
    expect(unknown.paramErrors).toHaveProperty(['event_client_ids[1]']);
    expect(sandbox.state.scheduleOf(user.id)).toEqual([]);
  });

  it('drops deleted events from schedules and deleted users from speaker lists', async () => {
    const user = await newUser();
    const [a, b] = [await newEvent(), await newEvent()];
    await client.events.replaceSchedule(scheduleParams({ id: user.id }, [a.clientId, b.clientId]));
    await client.speakers.add(b.id, { 'speaker[user_id]': String(user.id) });
    await client.events.delete(a.id);
    expect(sandbox.state.scheduleOf(user.id)).toEqual([b.id]);
    await client.users.delete(user.id);
    expect((await client.events.get(b.id)).speakers).toEqual([]);
  });
});
