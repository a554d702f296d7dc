import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformClientOptions } from '../../../src/platform/platform-client.js';
import { PlatformClient } from '../../../src/platform/platform-client.js';
import {
  OutcomeUnknownError,
  PlatformHttpError,
  PlatformUnreachableError,
  RateLimitedError,
} from '../../../src/platform/platform-error.js';
import { RateLimiter } from '../../../src/platform/rate-limiter.js';
import type { PlatformTestServer } from '../../helpers/platform-test-server.js';
import { startPlatformTestServer } from '../../helpers/platform-test-server.js';

const SIGNING_KEY = 'integration-key';
const user = (id: number) => ({ id, first_name: 'Ada', last_name: 'Lovelace', client_ids: [`u-${id}`] });

let server: PlatformTestServer;
const clients: PlatformClient[] = [];

function client(options: Partial<PlatformClientOptions> = {}): PlatformClient {
  const created = new PlatformClient({
    baseUrl: server.url,
    keyId: 42,
    signingKey: SIGNING_KEY,
    rateLimit: { requestsPerSecond: 1000, burst: 100, concurrency: 8 },
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    ...options,
  });
  clients.push(created);
  return created;
}

beforeAll(async () => {
  server = await startPlatformTestServer(SIGNING_KEY);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  server.requests.length = 0;
  server.handle(() => ({ json: {} }));
});
afterAll(async () => {
  await server.close();
});

describe('PlatformClient over real HTTP', () => {
  it('signs every method so the server accepts it, and reuses one keep-alive connection', async () => {
    server.handle((request) => (request.method === 'DELETE' ? { status: 200, text: '' } : { json: user(1) }));
    const api = client({ http: { connections: 1 } });
    await api.users.get(1);
    await api.users.create({
      'user[first_name]': 'A+b & c=d%',
      'user[last_name]': 'Zoë\n李',
      client_id: 'u-1',
    });
    await api.users.update({ clientId: 'u-1' }, { 'user[first_name]': 'Ada' });
    await api.users.delete(1);
    expect(server.requests.map((r) => [r.method, r.path, r.signatureValid])).toEqual([
      ['GET', '/user/member/1', true],
      ['POST', '/user', true],
      ['PUT', '/user/member', true],
      ['DELETE', '/user/member/1', true],
    ]);
    expect(server.requests[1]?.body['user[last_name]']).toBe('Zoë\n李');
    expect(server.requests[2]?.body.client_id).toBe('u-1');
    expect(new Set(server.requests.map((r) => r.connection)).size).toBe(1);
  });

  it('keeps connections alive across sequential calls by default', async () => {
    server.handle(() => ({ json: user(1) }));
    const api = client();
    for (let i = 0; i < 20; i += 1) await api.users.get(1);
    expect(new Set(server.requests.map((r) => r.connection)).size).toBeLessThanOrEqual(2);
  });

  it('says attached for a 203 and created for a 200', async () => {
    server.handle((_request, index) => ({ status: index === 0 ? 203 : 200, json: user(index + 1) }));
    const api = client();
    await expect(api.users.create({ 'user[first_name]': 'A' })).resolves.toMatchObject({
      outcome: 'attached',
      user: { id: 1 },
    });
    await expect(api.users.create({ 'user[first_name]': 'B' })).resolves.toMatchObject({
      outcome: 'created',
      user: { id: 2 },
    });
  });

  it('reads an answer that starts with a byte order mark, or arrives in many chunks', async () => {
    // 300,000 three-byte characters: many socket reads, with characters cut between them.
    const long = { ...user(2), bio: '李'.repeat(300_000) };
    server.handle((_request, index) =>
      index === 0 ? { text: `\uFEFF${JSON.stringify(user(1))}` } : { json: long },
    );
    const api = client();
    await expect(api.users.get(1)).resolves.toMatchObject({ id: 1, last_name: 'Lovelace' });
    const answer = await api.users.get(2);
    expect((answer as { bio?: string }).bio).toBe(long.bio);
  });

  it('retries 5xx and succeeds', async () => {
    server.handle((_request, index) =>
      index < 2 ? { status: 503, json: { error: 'busy' } } : { json: user(9) },
    );
    await expect(client().users.get(9)).resolves.toMatchObject({ id: 9 });
    expect(server.requests).toHaveLength(3);
  });

  it('honours Retry-After on 429 without spending attempts', async () => {
    server.handle((_request, index) =>
      index < 2
        ? { status: 429, headers: { 'retry-after': '1' }, json: { error: 'slow down' } }
        : { json: user(3) },
    );
    const started = performance.now();
    const api = client({ retry: { maxAttempts: 1 } });
    await expect(api.users.get(3)).resolves.toMatchObject({ id: 3 });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(1950);
    expect(elapsed).toBeLessThan(4000);
    expect(server.requests).toHaveLength(3);
    expect(api.limiter.currentRate).toBeLessThan(1000);
  });

  it('a 429 slows down every caller sharing the limiter', async () => {
    const limiter = new RateLimiter({ requestsPerSecond: 1000, burst: 100, concurrency: 8 });
    server.handle((request, index) =>
      index === 0
        ? { status: 429, headers: { 'retry-after': '1' } }
        : { json: user(Number(request.path.split('/').pop())) },
    );
    const first = client({ rateLimit: limiter });
    const second = client({ rateLimit: limiter });
    const limited = first.users.get(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    await second.users.get(2);
    expect(performance.now() - started).toBeGreaterThan(700);
    await limited;
  });

  it('surfaces a 422 at once with the per-param errors', async () => {
    server.handle(() => ({
      status: 422,
      json: {
        error: 'Validation failed',
        errors: { 'user[first_name]': ['is too long (maximum is 64 characters)'] },
      },
    }));
    const error = await client()
      .users.create({ 'user[first_name]': 'x'.repeat(65) })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PlatformHttpError);
    expect(error).toMatchObject({ status: 422, code: 'EVSYNC_PLATFORM_INVALID', retryable: false });
    expect((error as PlatformHttpError).paramErrors['user[first_name]']).toEqual([
      'is too long (maximum is 64 characters)',
    ]);
    expect(server.requests).toHaveLength(1);
  });

  // undici checks header and body timeouts on a coarse (~1 s) clock, hence the long delays.
  it('a header timeout on a GET is retried', async () => {
    server.handle((_request, index) => (index === 0 ? { json: user(5), delayMs: 3000 } : { json: user(5) }));
    await expect(client({ http: { headersTimeoutMs: 300 } }).users.get(5)).resolves.toMatchObject({ id: 5 });
    expect(server.requests).toHaveLength(2);
  });

  it('a header timeout on a create is an unknown outcome, sent once', async () => {
    server.handle(() => ({ json: user(5), delayMs: 3000 }));
    const error = await client({ http: { headersTimeoutMs: 300 } })
      .users.create({ 'user[first_name]': 'A' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error).toMatchObject({ code: 'EVSYNC_PLATFORM_OUTCOME_UNKNOWN', method: 'POST', path: '/user' });
    expect(server.requests).toHaveLength(1);
  });

  it('a connection reset mid-request makes a create an unknown outcome, never resent', async () => {
    server.handle(() => ({ destroy: 'before-headers' }));
    const error = await client()
      .events.create({ 'event[item_attributes][display_value]': 'Keynote', client_id: 'ev-1' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(server.requests).toHaveLength(1);
  });

  it('a body cut after the status line is an unknown outcome that keeps the status', async () => {
    server.handle(() => ({ destroy: 'after-headers' }));
    const error = await client()
      .users.create({ 'user[first_name]': 'A' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).status).toBe(200);
    expect(server.requests).toHaveLength(1);
  });

  it('a reset on an idempotent PUT is retried', async () => {
    server.handle((_request, index) => (index === 0 ? { destroy: 'before-headers' } : { json: user(4) }));
    await expect(client().users.update(4, { 'user[first_name]': 'B' })).resolves.toMatchObject({ id: 4 });
    expect(server.requests).toHaveLength(2);
  });

  it('a refused connection is unreachable and retried, even for a create', async () => {
    const api = new PlatformClient({
      baseUrl: 'http://127.0.0.1:1',
      keyId: 1,
      signingKey: 'k',
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
    });
    const error = await api.users.create({ 'user[first_name]': 'A' }).catch((caught: unknown) => caught);
    await api.close();
    expect(error).toBeInstanceOf(PlatformUnreachableError);
    expect(error).toMatchObject({ attempts: 3, retryable: true, code: 'EVSYNC_PLATFORM_UNREACHABLE' });
  });

  it('a body timeout is an unknown outcome', async () => {
    server.handle(() => ({ stallBody: true }));
    const api = client({ http: { bodyTimeoutMs: 300 }, retry: { maxAttempts: 1 } });
    const error = await api.users.get(1).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).message).toContain('UND_ERR_BODY_TIMEOUT');
  });

  it('close() ends a wait on Retry-After at once, and a stop signal does the same', async () => {
    server.handle(() => ({ status: 429, headers: { 'retry-after': '60' } }));
    const api = client();
    const waiting = api.users.get(1).catch((caught: unknown) => caught);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    await api.close();
    await expect(waiting).resolves.toMatchObject({ code: 'EVSYNC_PLATFORM_CLOSED', retryable: false });
    expect(performance.now() - started).toBeLessThan(1000);

    const controller = new AbortController();
    const stoppable = client({ signal: controller.signal });
    const pending = stoppable.users.get(1).catch((caught: unknown) => caught);
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    await expect(pending).resolves.toMatchObject({ code: 'EVSYNC_PLATFORM_CLOSED' });
    expect(server.requests).toHaveLength(2);
  });

  it('a closed client refuses further calls', async () => {
    const api = client();
    await api.close();
    await expect(api.users.get(1)).rejects.toMatchObject({ code: 'EVSYNC_PLATFORM_CLOSED' });
  });

  it('rate-limits in real time across concurrent calls', async () => {
    server.handle(() => ({ json: user(1) }));
    const api = client({ rateLimit: { requestsPerSecond: 20, concurrency: 4 } });
    const started = performance.now();
    await Promise.all(Array.from({ length: 21 }, () => api.users.get(1)));
    const seconds = (performance.now() - started) / 1000;
    // 21 calls at 20/s: the first at once, the last 1 s later; the upper bound only
    // guards against a stall, with room for a loaded machine.
    expect(seconds).toBeGreaterThan(0.95);
    expect(seconds).toBeLessThan(2.5);
  });

  it('RateLimitedError is surfaced when the platform asks for too long a wait', async () => {
    server.handle(() => ({ status: 429, headers: { 'retry-after': '3600' } }));
    const error = await client()
      .users.get(1)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(3_600_000);
  });
});

describe('PlatformClient options', () => {
  it.each([
    [{ baseUrl: 'not a url' }, /is not a URL/],
    [{ baseUrl: 'ftp://example.com' }, /must be http\(s\)/],
    [{ baseUrl: 'https://user:pw@example.com' }, /no query and no credentials/],
    [{ keyId: 'abc' }, /key_id must be an integer/],
    [{ signingKey: '' }, /signing key is empty/],
  ])('refuses %o with a config error', (bad, message) => {
    const make = () =>
      new PlatformClient({ baseUrl: 'https://example.com', keyId: 1, signingKey: 'k', ...bad });
    expect(make).toThrow(message);
    expect(make).toThrow(expect.objectContaining({ code: 'EVSYNC_CONFIG' }) as Error);
  });

  it('keeps a path prefix of the base URL', async () => {
    server.handle(() => ({ json: user(1) }));
    await client({ baseUrl: `${server.url}/api/` }).users.get(1);
    expect(server.requests[0]?.path).toBe('/api/user/member/1');
  });
});
