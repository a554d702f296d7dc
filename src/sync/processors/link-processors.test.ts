import { describe, expect, it } from 'vitest';
import type { PlannedIntent } from '../../model/planned-intent.js';
import type { MemberRef } from '../../platform/member-ref.js';
import type { FlatParams } from '../../model/params.js';
import { OutcomeUnknownError, PlatformHttpError } from '../../platform/platform-error.js';
import { CHECK_IN_OUTCOME_UNKNOWN } from './check-in-processor.js';
import { SharedLinks } from '../plan/link-pairs.js';
import { IdCache } from './id-cache.js';
import { processIntent } from './process-intent.js';
import type { ProcessorContext } from './processor.js';
import type { SyncPlatform } from './sync-platform.js';

type Answer = 'ok' | 'already' | 'not found' | 'lost';
const ACK = { status: 200, body: null };

/**
 * The link endpoints of the platform, recording each call as `NAME ref params` and
 * answering from a script (one answer per call, `ok` when the script is empty).
 */
function linkPlatform(script: Answer[] = []) {
  const calls: string[] = [];
  const reply = (name: string, ref: MemberRef | undefined, params: FlatParams) => {
    calls.push(`${name} ${JSON.stringify(ref ?? null)} ${JSON.stringify(params)}`);
    const next = script.shift() ?? 'ok';
    const site = { method: 'POST', path: `/${name}` };
    if (next === 'already')
      throw new PlatformHttpError(site, 422, { platformMessage: 'User is already a speaker.' });
    if (next === 'not found') throw new PlatformHttpError(site, 404);
    if (next === 'lost') throw new OutcomeUnknownError(site, 'socket closed');
    return ACK;
  };
  // A throw inside the executor is the promise's rejection, as the client's would be.
  const answer = (name: string, ref: MemberRef | undefined, params: FlatParams) =>
    new Promise<typeof ACK>((resolve) => resolve(reply(name, ref, params)));
  const unused = (): never => {
    throw new Error('not a link call');
  };
  const platform: SyncPlatform = {
    vendor: 'svc',
    users: { create: unused, update: unused, getByEmail: unused, delete: unused },
    events: {
      create: unused,
      update: unused,
      get: unused,
      list: unused,
      delete: unused,
      rsvpAdd: (event, params) => answer('rsvpAdd', event, params),
      rsvpRemove: (event, params) => answer('rsvpRemove', event, params),
      replaceSchedule: (params) => answer('replaceSchedule', undefined, params).then(() => []),
    },
    speakers: {
      add: (event, params) => answer('speakerAdd', event, params),
      remove: (event, params) => answer('speakerRemove', event, params),
    },
    contacts: {
      add: (params) => answer('contactAdd', undefined, params),
      remove: (params) => answer('contactRemove', undefined, params),
    },
    checkIns: {
      create: (params) => answer('checkIn', undefined, params).then(() => ({ id: 77 })),
    },
  };
  return { platform, calls };
}

function context(platform: SyncPlatform, marks: string[] = []): ProcessorContext {
  return {
    platform,
    ids: new IdCache([
      ['user', new Map([['ada', 11]])],
      ['event', new Map([['keynote', 21]])],
    ]),
    markSendStarted: (item) => {
      marks.push(`${item.kind} ${item.key}`);
      return Promise.resolve();
    },
  };
}

function intent(kind: PlannedIntent['kind'], key: string, extra: Partial<PlannedIntent> = {}): PlannedIntent {
  return {
    kind,
    key,
    op: 'upsert',
    plannedAction: 'create',
    params: {},
    origin: null,
    dependsOn: [],
    hash: 'h',
    ...extra,
  };
}

describe('speaker links', () => {
  it('names the event and user by their keys, though the id map holds their platform ids; a source’s own id as given', async () => {
    const fake = linkPlatform();
    const known = await processIntent(
      intent('speaker', 'keynote/ada', { params: { client_id: 'keynote', 'speaker[type_name]': 'chair' } }),
      context(fake.platform),
    );
    const unknown = await processIntent(intent('speaker', 'panel/bob'), context(fake.platform));
    const byId = await processIntent(intent('speaker', 'panel/#5'), context(fake.platform));
    expect([known.action, unknown.action, byId.action]).toEqual(['created', 'created', 'created']);
    expect(fake.calls).toEqual([
      // The id map knows keynote as 21 and ada as 11: a conference reset may have given those to others.
      'speakerAdd {"clientId":"keynote"} {"client_id":"keynote","speaker[type_name]":"chair","speaker[user_client_id]":"ada"}',
      'speakerAdd {"clientId":"panel"} {"speaker[user_client_id]":"bob"}',
      'speakerAdd {"clientId":"panel"} {"speaker[user_id]":"5"}',
    ]);
  });

  it('"already a speaker": removes the link and adds it with the source’s type', async () => {
    const fake = linkPlatform(['already']);
    const outcome = await processIntent(
      intent('speaker', 'keynote/ada', {
        plannedAction: 'update',
        params: { 'speaker[type_name]': 'moderator' },
      }),
      context(fake.platform),
    );
    expect(outcome).toMatchObject({ action: 'updated', attempts: 3 });
    expect(fake.calls.map((call) => call.split(' ')[0])).toEqual([
      'speakerAdd',
      'speakerRemove',
      'speakerAdd',
    ]);
    expect(fake.calls[1]).not.toMatch(/type_name/);
    expect(fake.calls[2]).toMatch(/"speaker\[type_name\]":"moderator"/);
  });

  it('a new link of another type refused as "already a speaker" is removed and added with that type', async () => {
    const fake = linkPlatform(['already']);
    const outcome = await processIntent(
      intent('speaker', 'keynote/ada', { params: { 'speaker[type_name]': 'chair' } }),
      context(fake.platform),
    );
    expect(outcome).toMatchObject({ action: 'created', attempts: 3 });
    expect(fake.calls.map((call) => call.split(' ')[0])).toEqual([
      'speakerAdd',
      'speakerRemove',
      'speakerAdd',
    ]);
  });

  it('a new plain speaker link refused as "already a speaker" is done: the link there is left as it is', async () => {
    const fake = linkPlatform(['already']);
    const outcome = await processIntent(intent('speaker', 'keynote/ada'), context(fake.platform));
    expect(outcome).toMatchObject({ action: 'created', attempts: 1 });
    expect(fake.calls).toHaveLength(1);
  });

  it('still "already" after the remove: failed, saying what to check', async () => {
    const fake = linkPlatform(['already', 'ok', 'already']);
    const outcome = await processIntent(
      intent('speaker', 'keynote/ada', { plannedAction: 'update' }),
      context(fake.platform),
    );
    expect(outcome).toMatchObject({ action: 'failed', errorCode: 'EVSYNC_SPEAKER_LINK_STUCK', attempts: 3 });
    expect(outcome.message).toMatch(/"keynote\/ada" is a speaker link after it was removed/);
  });

  it('a lost answer is sent again; "already" then is our own first add', async () => {
    const fake = linkPlatform(['lost', 'already']);
    const outcome = await processIntent(intent('speaker', 'keynote/ada'), context(fake.platform));
    expect(outcome).toMatchObject({ action: 'created', attempts: 2 });
    expect(fake.calls.map((call) => call.split(' ')[0])).toEqual(['speakerAdd', 'speakerAdd']);
  });

  it('removing a link the platform does not have is done', async () => {
    const fake = linkPlatform(['not found']);
    const outcome = await processIntent(
      intent('speaker', 'keynote/ada', { op: 'remove', params: { 'speaker[type_name]': 'chair' } }),
      context(fake.platform),
    );
    expect(outcome).toMatchObject({ action: 'updated', attempts: 1 });
    const mirrorDelete = await processIntent(
      intent('speaker', 'keynote/ada', { plannedAction: 'delete' }),
      context(linkPlatform().platform),
    );
    expect(mirrorDelete.action).toBe('deleted');
  });
});

describe('mirror deletes of links a key still in the source names', () => {
  // `ada` re-keyed as `ada-2` in the source: both map to platform user 11.
  const shared = (platform: SyncPlatform): ProcessorContext => {
    const base = context(platform);
    base.ids.set('user', 'ada-2', 11);
    const live = new SharedLinks(
      (kind) => (kind === 'speaker' ? ['keynote/ada-2'] : kind === 'schedule' ? ['ada-2'] : []),
      (kind, key) =>
        (kind === 'user'
          ? new Map([
              ['ada', 11],
              ['ada-2', 11],
            ])
          : new Map([['keynote', 21]])
        ).get(key),
    );
    return { ...base, sharedLink: (kind, key) => Promise.resolve(live.sharedWith(kind, key)) };
  };

  it('retires them with no call, naming the platform records and the live key', async () => {
    const fake = linkPlatform();
    const speaker = await processIntent(
      intent('speaker', 'keynote/ada', { op: 'remove', plannedAction: 'delete' }),
      shared(fake.platform),
    );
    const schedule = await processIntent(
      intent('schedule', 'ada', { op: 'remove', plannedAction: 'delete' }),
      shared(fake.platform),
    );
    expect(speaker).toMatchObject({
      action: 'retired',
      message:
        'not deleted: platform speaker link (event 21, user 11) is also "keynote/ada-2", still in the source; the ledger forgets this key',
    });
    expect(schedule).toMatchObject({
      action: 'retired',
      message: expect.stringMatching(/schedule \(user 11\)/),
    });
    expect(fake.calls).toEqual([]);
  });

  it('a planned retire stays one; a source row that removes the link is sent', async () => {
    const fake = linkPlatform();
    const planned = await processIntent(
      intent('rsvp', 'ada/keynote', { op: 'remove', plannedAction: 'retire' }),
      context(fake.platform),
    );
    expect(planned).toMatchObject({
      action: 'retired',
      message: expect.stringMatching(/a key still in the source/),
    });
    expect(fake.calls).toEqual([]);
    const removed = await processIntent(
      intent('speaker', 'keynote/ada', { op: 'remove' }),
      shared(fake.platform),
    );
    expect(removed.action).toBe('updated');
    expect(fake.calls.map((call) => call.split(' ')[0])).toEqual(['speakerRemove']);
  });
});

describe('schedules and RSVPs', () => {
  it('replaces a schedule for the user of its key; a mirror delete clears it', async () => {
    const fake = linkPlatform();
    const replaced = await processIntent(
      intent('schedule', 'ada', { params: { 'event_client_ids[0]': 'keynote' } }),
      context(fake.platform),
    );
    const cleared = await processIntent(
      intent('schedule', '#5', { plannedAction: 'delete' }),
      context(fake.platform),
    );
    expect(replaced.action).toBe('created');
    expect(cleared).toMatchObject({ action: 'deleted', message: 'schedule cleared (0 left)' });
    expect(fake.calls).toEqual([
      'replaceSchedule null {"user[client_id]":"ada","event_client_ids[0]":"keynote"}',
      'replaceSchedule null {"user[id]":"5"}',
    ]);
  });

  it('adds an RSVP by the event’s key and the user of its key; removing a missing one is done', async () => {
    const fake = linkPlatform(['ok', 'not found']);
    const added = await processIntent(intent('rsvp', 'email:ada@x.org/keynote'), context(fake.platform));
    const removed = await processIntent(
      intent('rsvp', 'ada/panel', { op: 'remove' }),
      context(fake.platform),
    );
    expect([added.action, removed.action]).toEqual(['created', 'updated']);
    expect(fake.calls).toEqual([
      'rsvpAdd {"clientId":"keynote"} {"user[email]":"ada@x.org"}',
      'rsvpRemove {"clientId":"panel"} {"user[client_id]":"ada"}',
    ]);
  });

  it('a refusal other than "not found" on removal fails the RSVP', async () => {
    const fake = linkPlatform(['already']);
    const outcome = await processIntent(
      intent('rsvp', 'ada/keynote', { op: 'remove' }),
      context(fake.platform),
    );
    expect(outcome).toMatchObject({ action: 'failed', httpStatus: 422 });
  });
});

describe('contacts', () => {
  it('resolves a user contact given by client_id through the id map; "already" is done', async () => {
    const fake = linkPlatform(['already']);
    const outcome = await processIntent(intent('contact', 'bob/user:ada'), context(fake.platform));
    expect(outcome.action).toBe('created');
    expect(fake.calls).toEqual(['contactAdd null {"client_id":"bob","user_id":"11"}']);
  });

  it('a contact with no platform id fails with what to do, and nothing is sent', async () => {
    const fake = linkPlatform();
    const outcome = await processIntent(intent('contact', 'bob/user:zed'), context(fake.platform));
    expect(outcome).toMatchObject({ action: 'failed', errorCode: 'EVSYNC_CONTACT_UNRESOLVED' });
    expect(outcome.message).toMatch(/sync that user first, or give user_id\/exhibitor_id/);
    expect(fake.calls).toEqual([]);
  });
});

describe('check-ins', () => {
  it('marks the send before the POST', async () => {
    const fake = linkPlatform();
    const order: string[] = [];
    const ctx = context(fake.platform);
    ctx.markSendStarted = (item) => {
      order.push(`mark ${item.key}`);
      return Promise.resolve();
    };
    const create = ctx.platform.checkIns.create.bind(ctx.platform.checkIns);
    ctx.platform.checkIns.create = (params) => {
      order.push('POST');
      return create(params);
    };
    const outcome = await processIntent(intent('check_in', 'ci1', { params: { mode: '1' } }), ctx);
    expect(outcome).toMatchObject({ action: 'created', platformId: 77 });
    expect(order).toEqual(['mark ci1', 'POST']);
  });

  it('a lost answer is not posted again: failed as outcome unknown', async () => {
    const fake = linkPlatform(['lost']);
    const outcome = await processIntent(intent('check_in', 'ci1'), context(fake.platform));
    expect(outcome).toMatchObject({ action: 'failed', errorCode: CHECK_IN_OUTCOME_UNKNOWN, attempts: 1 });
    expect(fake.calls).toHaveLength(1);
  });

  it('a changed check-in, or one whose mark could not be written, is not sent', async () => {
    const fake = linkPlatform();
    const changed = await processIntent(
      intent('check_in', 'ci1', { plannedAction: 'update' }),
      context(fake.platform),
    );
    expect(changed).toMatchObject({ action: 'failed', errorCode: 'EVSYNC_CHECK_IN_UNCHANGEABLE' });
    const ctx = context(fake.platform);
    ctx.markSendStarted = () => Promise.reject(new Error('ledger down'));
    const unmarked = await processIntent(intent('check_in', 'ci2'), ctx);
    expect(unmarked).toMatchObject({ action: 'failed', errorCode: 'EVSYNC_INTERNAL' });
    expect(unmarked.message).toMatch(/ledger down/);
    expect(fake.calls).toEqual([]);
  });
});
