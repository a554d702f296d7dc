import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { scheduleParams } from '../../../src/platform/events-api.js';
import { PlatformClient } from '../../../src/platform/platform-client.js';
import { OutcomeUnknownError, PlatformHttpError } from '../../../src/platform/platform-error.js';
import type { RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import { startSandbox } from '../../../src/sandbox/start-sandbox.js';

let sandbox: RunningSandbox;
let client: PlatformClient;

const ada = {
  client_id: 'u-ada',
  'user[first_name]': 'Ada',
  'user[last_name]': 'Lovelace',
  'user[svc_auth_attributes][email]': 'ada@example.com',
};
const keynote = {
  client_id: 'e-keynote',
  'event[item_attributes][display_value]': 'Keynote & Welcome',
  'event[item_attributes][article][content]': '<p>Opening</p>',
  'event[start]': '2026-05-01T09:00:00+02:00',
  'event[finish]': '2026-05-01T10:00:00+02:00',
};

function clientFor(options: { signingKey?: string; retry?: { maxAttempts?: number } } = {}): PlatformClient {
  return new PlatformClient({
    baseUrl: sandbox.url,
    keyId: sandbox.keyId,
    signingKey: options.signingKey ?? sandbox.signingKey,
    rateLimit: { requestsPerSecond: 500, burst: 50, concurrency: 8 },
    retry: { baseDelayMs: 5, maxDelayMs: 50, ...options.retry },
  });
}

beforeAll(async () => {
  sandbox = await startSandbox({
    seed: { users: [{ first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com' }] },
  });
  client = clientFor();
});
afterEach(() => {
  sandbox.faults.set({});
  sandbox.reset();
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('PlatformClient against the sandbox', () => {
  it('passes /signature_test, and a wrong key is a typed 401', async () => {
    await expect(client.signatureTest()).resolves.toMatchObject({ status: 200, valid: true });
    await expect(
      client.signatureTest({ method: 'POST', body: { 'a[b]': 'x + y & z' } }),
    ).resolves.toMatchObject({
      valid: true,
    });
    const wrong = clientFor({ signingKey: 'not-the-key' });
    await expect(wrong.signatureTest()).resolves.toMatchObject({ valid: false });
    const error = await wrong.users.get(1).catch((caught: unknown) => caught);
    await wrong.close();
    expect(error).toBeInstanceOf(PlatformHttpError);
    expect(error).toMatchObject({ status: 401, code: 'EVSYNC_PLATFORM_UNAUTHORIZED', retryable: false });
  });

  it('users: create, find, update by client_id, refuse a duplicate, attach a platform-wide user, delete', async () => {
    const created = await client.users.create(ada);
    expect(created.outcome).toBe('created');
    expect(created.user.client_ids).toContain('u-ada');
    await expect(client.users.getByEmail('ada@example.com')).resolves.toMatchObject({ id: created.user.id });
    await expect(client.users.getByEmail('nobody@example.com')).resolves.toBeUndefined();
    const updated = await client.users.update({ clientId: 'u-ada' }, { 'user[first_name]': 'Augusta Ada' });
    expect(updated.first_name).toBe('Augusta Ada');
    await expect(client.users.get({ clientId: 'u-ada' })).resolves.toMatchObject({
      first_name: 'Augusta Ada',
    });

    const duplicate = await client.users.create(ada).catch((caught: unknown) => caught);
    expect(duplicate).toMatchObject({ status: 422, code: 'EVSYNC_PLATFORM_INVALID' });

    const grace = await client.users.create({
      client_id: 'u-grace',
      'user[first_name]': 'G',
      'user[last_name]': 'H',
      'user[svc_auth_attributes][email]': 'grace@example.com',
    });
    expect(grace.outcome).toBe('attached');

    const everyone = await collect(client.users.list({ limit: 1 }));
    expect(everyone.map((u) => u.id)).toEqual(expect.arrayContaining([created.user.id, grace.user.id]));
    await client.users.delete(created.user.id);
    await expect(client.users.getByEmail('ada@example.com')).resolves.toBeUndefined();
  });

  it('events, speakers, RSVPs and schedules by client_id', async () => {
    await client.users.create(ada);
    const event = await client.events.create(keynote);
    expect(event.client_ids).toContain('e-keynote');
    await expect(client.events.get({ clientId: 'e-keynote' })).resolves.toMatchObject({ id: event.id });
    const renamed = await client.events.update(
      { clientId: 'e-keynote' },
      { 'event[item_attributes][display_value]': 'Keynote' },
    );
    expect(renamed.name).toBe('Keynote');

    await client.speakers.add({ clientId: 'e-keynote' }, { 'speaker[user_client_id]': 'u-ada' });
    const speakers = await collect(client.speakers.listForEvent(event.id));
    expect(speakers.map((s) => s.client_ids)).toEqual([expect.arrayContaining(['u-ada'])]);

    const schedule = await client.events.replaceSchedule(
      scheduleParams({ clientId: 'u-ada' }, ['e-keynote']),
    );
    expect(schedule).toEqual([expect.objectContaining({ id: event.id, client_ids: ['e-keynote'] })]);
    await client.events.rsvpRemove({ clientId: 'e-keynote' }, { 'user[client_id]': 'u-ada' });
    await client.events.rsvpAdd({ clientId: 'e-keynote' }, { 'user[client_id]': 'u-ada' });

    const events = await collect(client.events.list());
    expect(events.map((e) => e.id)).toContain(event.id);
    await client.events.delete({ clientId: 'e-keynote' });
    await expect(client.events.get(event.id)).rejects.toMatchObject({ status: 404 });
  });

  it('a create whose answer is dropped after commit is an unknown outcome, sent once, found by e-mail', async () => {
    sandbox.faults.set({ commitDrop: { next: 1 } });
    const error = await client.users.create(ada).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(sandbox.counters.createsOf('user', 'u-ada')).toBe(1);
    expect(sandbox.counters.callsTo('POST', '/user')).toBe(1);
    await expect(client.users.getByEmail('ada@example.com')).resolves.toMatchObject({
      client_ids: expect.arrayContaining(['u-ada']),
    });
  });

  it('503s are retried until the call goes through', async () => {
    sandbox.faults.set({ error503: { next: 2 } });
    await expect(client.users.get({ clientId: 'u-none' }).catch((e: unknown) => e)).resolves.toMatchObject({
      status: 404,
      attempts: 3,
    });
  });
});

describe('PlatformClient against a rate-limited sandbox', () => {
  it('rides out 429s: every call succeeds, and the client slows down', async () => {
    const limited = await startSandbox({ rateLimit: { perSecond: 10, burst: 5 } });
    const fast = new PlatformClient({
      baseUrl: limited.url,
      keyId: limited.keyId,
      signingKey: limited.signingKey,
      rateLimit: { requestsPerSecond: 100, burst: 20, concurrency: 8 },
      retry: { maxAttempts: 1 },
    });
    try {
      const results = await Promise.all(Array.from({ length: 25 }, () => fast.signatureTest()));
      expect(results.every((result) => result.valid === true)).toBe(true);
      const { statuses } = limited.counters.snapshot();
      expect(statuses['429']).toBeGreaterThan(0);
      expect(statuses['200']).toBe(25);
      expect(fast.limiter.currentRate).toBeLessThan(100);
    } finally {
      await fast.close();
      await limited.close();
    }
  });
});
