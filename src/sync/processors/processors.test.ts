import { describe, expect, it } from 'vitest';
import type { PlannedIntent } from '../../model/planned-intent.js';
import type { FlatParams } from '../../model/params.js';
import { OutcomeUnknownError, PlatformHttpError } from '../../platform/platform-error.js';
import type { PlatformEvent, PlatformUser } from '../../platform/response-schemas.js';
import { IdCache } from './id-cache.js';
import { processIntent } from './process-intent.js';
import type { SyncPlatform } from './sync-platform.js';

const EMAIL = 'user[svc_auth_attributes][email]';
const PASSWORD = 'user[svc_auth_attributes][password]';

/** An in-memory platform whose next answers can be scripted, recording every call. */
function fakePlatform() {
  const calls: string[] = [];
  const users = new Map<number, { email: string; params: FlatParams }>();
  const events = new Map<number, { clientId: string; params: FlatParams }>();
  let nextId = 100;
  const script: Array<() => never> = [];
  const fail = (): void => {
    const next = script.shift();
    if (next) next();
  };
  const user = (id: number): PlatformUser => ({ id });
  const event = (id: number): PlatformEvent => ({ id });
  const platform: SyncPlatform = {
    vendor: 'svc',
    users: {
      create: (params) => {
        calls.push(`POST /user ${JSON.stringify(params)}`);
        const existing = [...users.entries()].find(([, u]) => u.email === params[EMAIL]);
        if (existing) {
          throw new PlatformHttpError({ method: 'POST', path: '/user' }, 422, {
            paramErrors: { [EMAIL]: ['has already been taken'] },
          });
        }
        const id = (nextId += 1);
        users.set(id, { email: params[EMAIL] ?? '', params });
        fail();
        return Promise.resolve({
          outcome: params[EMAIL]?.startsWith('wide') ? 'attached' : 'created',
          user: user(id),
        });
      },
      update: (ref, params) => {
        calls.push(`PUT /user/member/${JSON.stringify(ref)} ${JSON.stringify(params)}`);
        if (typeof ref === 'number') return Promise.resolve(user(ref));
        // By client_id: the user created with it, else nobody (404).
        const found = [...users.entries()].find(
          ([, u]) => 'clientId' in ref && u.params.client_id === ref.clientId,
        );
        if (!found)
          return Promise.reject(new PlatformHttpError({ method: 'PUT', path: '/user/member' }, 404));
        return Promise.resolve({ ...user(found[0]), client_ids: [found[1].params.client_id ?? ''] });
      },
      getByEmail: (email) => {
        calls.push(`GET /user/member ${email}`);
        const found = [...users.entries()].find(([, u]) => u.email === email);
        return Promise.resolve(found ? user(found[0]) : undefined);
      },
      delete: () => Promise.resolve(),
    },
    events: {
      create: (params) => {
        calls.push(`POST /event ${params.client_id}`);
        if ([...events.values()].some((e) => e.clientId === params.client_id)) {
          throw new PlatformHttpError({ method: 'POST', path: '/event' }, 422, {
            platformMessage: 'Event with that client_id already exists.',
          });
        }
        const id = (nextId += 1);
        events.set(id, { clientId: params.client_id ?? '', params });
        fail();
        return Promise.resolve(event(id));
      },
      update: (ref) => {
        calls.push(`PUT /event ${JSON.stringify(ref)}`);
        return Promise.resolve(event(typeof ref === 'number' ? ref : 0));
      },
      get: (ref) => {
        calls.push(`GET /event/member ${JSON.stringify(ref)}`);
        const clientId = typeof ref === 'object' && 'clientId' in ref ? ref.clientId : '';
        const found = [...events.entries()].find(([, e]) => e.clientId === clientId);
        if (!found) throw new PlatformHttpError({ method: 'GET', path: '/event/member' }, 404);
        return Promise.resolve(event(found[0]));
      },
      list: async function* () {},
      delete: () => Promise.resolve(),
      rsvpAdd: () => Promise.resolve({ status: 200, body: null }),
      rsvpRemove: () => Promise.resolve({ status: 200, body: null }),
      replaceSchedule: () => Promise.resolve([]),
    },
    speakers: {
      add: () => Promise.resolve({ status: 200, body: null }),
      remove: () => Promise.resolve({ status: 200, body: null }),
    },
    contacts: {
      add: () => Promise.resolve({ status: 200, body: null }),
      remove: () => Promise.resolve({ status: 200, body: null }),
    },
    checkIns: { create: () => Promise.resolve({ id: 1 }) },
  };
  const loseNextAnswer = (method: string, path: string): void => {
    script.push(() => {
      throw new OutcomeUnknownError({ method, path }, 'socket closed');
    });
  };
  return { platform, calls, users, events, loseNextAnswer };
}

const noMark = (): Promise<void> => Promise.resolve();

function userIntent(key: string, email: string, extra: FlatParams = {}): PlannedIntent {
  return {
    kind: 'user',
    key,
    op: 'upsert',
    plannedAction: 'create',
    params: { client_id: key, 'user[first_name]': 'Ada', [EMAIL]: email, ...extra },
    origin: null,
    dependsOn: [],
    hash: 'h',
  };
}

describe('user processor', () => {
  it('203: PUTs the same details without any password and records attached', async () => {
    const fake = fakePlatform();
    const outcome = await processIntent(userIntent('w1', 'wide@x.org', { [PASSWORD]: 'secret' }), {
      platform: fake.platform,
      ids: new IdCache(),
      markSendStarted: noMark,
    });
    expect(outcome).toMatchObject({ action: 'attached', httpStatus: 203, attempts: 2 });
    const put = fake.calls.find((c) => c.startsWith('PUT'))!;
    expect(put).not.toMatch(/password|secret/);
    expect(put).toMatch(/user\[first_name\]/);
    // The attached user did not list the key: it goes with the PUT, so that later updates find the user by it.
    expect(put).toContain('"client_id":"w1"');
  });

  it('203 to an account of other keys: the key goes with the one PUT, not with a second', async () => {
    const fake = fakePlatform();
    fake.platform.users.create = (params) => {
      fake.calls.push(`POST /user ${JSON.stringify(params)}`);
      return Promise.resolve({
        outcome: 'attached',
        user: { id: 300, first_name: 'Ada', client_ids: ['other-conference-key'] },
      });
    };
    const outcome = await processIntent(userIntent('w1', 'wide@x.org'), {
      platform: fake.platform,
      ids: new IdCache(),
      markSendStarted: noMark,
    });
    expect(outcome).toMatchObject({ action: 'attached', platformId: 300 });
    expect(fake.calls.filter((call) => call.startsWith('PUT'))).toEqual([
      expect.stringMatching(/^PUT \/user\/member\/300 .*"client_id":"w1"/),
    ]);
  });

  it('updates a known user by its key, never by the platform id the ledger holds', async () => {
    // A conference reset gives its ids out again: 5 may be another person's account by now.
    const fake = fakePlatform();
    await fake.platform.users.create({ client_id: 'u1', [EMAIL]: 'u1@x.org' });
    const ids = new IdCache([['user', new Map([['u1', 5]])]]);
    const outcome = await processIntent(
      { ...userIntent('u1', 'u1@x.org'), plannedAction: 'update' },
      { platform: fake.platform, ids, markSendStarted: noMark },
    );
    expect(outcome).toMatchObject({ action: 'updated', platformId: 101 });
    expect(fake.calls.filter((c) => c.startsWith('PUT'))).toEqual([
      expect.stringMatching(/^PUT \/user\/member\/\{"clientId":"u1"\} /),
    ]);
    expect(await ids.get('user', 'u1')).toBe(101);
  });

  it('a merged person known by another of their keys is updated by that key', async () => {
    const fake = fakePlatform();
    await fake.platform.users.create({ client_id: 'old', [EMAIL]: 'm@x.org' });
    const ids = new IdCache([['user', new Map([['old', 101]])]]);
    const outcome = await processIntent(
      { ...userIntent('new', 'm@x.org'), plannedAction: 'update', aliases: ['old'] },
      { platform: fake.platform, ids, markSendStarted: noMark },
    );
    expect(outcome.action).toBe('updated');
    expect(fake.calls[1]).toMatch(/^PUT \/user\/member\/\{"clientId":"old"\} /);
  });

  it('a merged person the platform knows by their other key only: updated by it, then given their own', async () => {
    // Synced first under "old"; the ledger maps "new" too, but the account never got it.
    const fake = fakePlatform();
    await fake.platform.users.create({ client_id: 'old', [EMAIL]: 'm@x.org' });
    const ids = new IdCache([
      [
        'user',
        new Map([
          ['new', 101],
          ['old', 101],
        ]),
      ],
    ]);
    const outcome = await processIntent(
      { ...userIntent('new', 'm.new@x.org'), plannedAction: 'update', aliases: ['old'] },
      { platform: fake.platform, ids, markSendStarted: noMark },
    );
    expect(outcome).toMatchObject({ action: 'updated', platformId: 101 });
    expect(fake.calls.slice(1).map((call) => call.split(' {"user')[0])).toEqual([
      'PUT /user/member/{"clientId":"new"}',
      'PUT /user/member/{"clientId":"old"}',
      'PUT /user/member/101 {"client_id":"new"}',
    ]);
    // Nothing created: one account for one person, whatever the e-mail became.
    expect(fake.users.size).toBe(1);
  });

  it('a mirror delete names the user by its key, not by the id the ledger holds', async () => {
    const fake = fakePlatform();
    const deleted: unknown[] = [];
    fake.platform.users.delete = (ref) => {
      deleted.push(ref);
      return Promise.resolve();
    };
    const ids = new IdCache([['user', new Map([['gone', 7]])]]);
    const outcome = await processIntent(
      { ...userIntent('gone', 'g@x.org'), plannedAction: 'delete' },
      { platform: fake.platform, ids, markSendStarted: noMark },
    );
    expect(outcome).toMatchObject({ action: 'deleted', platformId: 7 });
    expect(deleted).toEqual([{ clientId: 'gone' }]);
  });

  it('a lost create answer: finds the user by e-mail and updates it, creating nothing twice', async () => {
    const fake = fakePlatform();
    fake.loseNextAnswer('POST', '/user');
    const ids = new IdCache();
    const outcome = await processIntent(userIntent('u1', 'u1@x.org'), {
      platform: fake.platform,
      ids,
      markSendStarted: noMark,
    });
    expect(outcome.action).toBe('created');
    expect(outcome.message).toMatch(/answer to the create was lost/);
    expect(fake.users.size).toBe(1);
    expect(await ids.get('user', 'u1')).toBe(outcome.platformId);
    expect(fake.calls.map((c) => c.split(' ').slice(0, 2).join(' '))).toEqual([
      'POST /user',
      'GET /user/member',
      'PUT /user/member/101',
    ]);
  });

  it('an update of a user the platform no longer has (404) creates it again', async () => {
    const fake = fakePlatform();
    fake.platform.users.update = () =>
      Promise.reject(new PlatformHttpError({ method: 'PUT', path: '/user/member/5' }, 404));
    const ids = new IdCache([['user', new Map([['u1', 5]])]]);
    const outcome = await processIntent(
      { ...userIntent('u1', 'u1@x.org'), plannedAction: 'update' },
      { platform: fake.platform, ids, markSendStarted: noMark },
    );
    expect(outcome.action).toBe('created');
    expect(await ids.get('user', 'u1')).toBe(101);
  });

  it('a permanent refusal ends failed with the platform message and status', async () => {
    const fake = fakePlatform();
    fake.platform.users.create = () =>
      Promise.reject(
        new PlatformHttpError({ method: 'POST', path: '/user' }, 422, {
          paramErrors: { 'user[last_name]': ["can't be blank"] },
        }),
      );
    const outcome = await processIntent(userIntent('u1', 'u1@x.org'), {
      platform: fake.platform,
      ids: new IdCache(),
      markSendStarted: noMark,
    });
    expect(outcome).toMatchObject({
      action: 'failed',
      httpStatus: 422,
      errorCode: 'EVSYNC_PLATFORM_INVALID',
    });
    expect(outcome.message).toMatch(/user\[last_name\] can't be blank/);
  });
});

describe('event processor', () => {
  const eventIntent = (key: string): PlannedIntent => ({
    kind: 'event',
    key,
    op: 'upsert',
    plannedAction: 'create',
    params: { client_id: key, 'event[item_attributes][display_value]': 'Talk' },
    origin: null,
    dependsOn: [],
    hash: 'h',
  });

  it('"client_id already exists" is reconciled: found by client_id and updated', async () => {
    const fake = fakePlatform();
    await fake.platform.events.create({ client_id: 'e1' });
    const ids = new IdCache();
    const outcome = await processIntent(eventIntent('e1'), {
      platform: fake.platform,
      ids,
      markSendStarted: noMark,
    });
    expect(outcome).toMatchObject({ action: 'updated', platformId: 101 });
    expect(fake.events.size).toBe(1);
    expect(await ids.get('event', 'e1')).toBe(101);
  });

  it('a lost create answer whose event never arrived is sent again once', async () => {
    const fake = fakePlatform();
    fake.loseNextAnswer('POST', '/event');
    // The fake applied the first create before losing its answer: reconciliation must find it.
    const outcome = await processIntent(eventIntent('e2'), {
      platform: fake.platform,
      ids: new IdCache(),
      markSendStarted: noMark,
    });
    expect(outcome.action).toBe('created');
    expect(fake.events.size).toBe(1);
    expect(fake.calls.filter((c) => c.startsWith('POST')).length).toBe(1);
  });
});
