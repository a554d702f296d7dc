import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlatParams } from '../../../src/model/params.js';
import { PlatformClient } from '../../../src/platform/platform-client.js';
import type { PlatformTestServer } from '../../helpers/platform-test-server.js';
import { startPlatformTestServer } from '../../helpers/platform-test-server.js';

const KEY = 'encoding-key';
let server: PlatformTestServer;
let client: PlatformClient;

beforeAll(async () => {
  server = await startPlatformTestServer(KEY);
  client = new PlatformClient({
    baseUrl: server.url,
    keyId: 9,
    signingKey: KEY,
    rateLimit: { requestsPerSecond: 2000, burst: 200, concurrency: 8 },
  });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

/** Bracketed names and values with anything in them: + & = % newlines, astral text, blanks. */
const name = fc
  .tuple(
    fc.stringMatching(/^[a-z][a-z_]{0,10}$/),
    fc.array(fc.oneof(fc.stringMatching(/^[a-z_]{1,12}$/), fc.nat(30).map(String)), { maxLength: 3 }),
  )
  .map(([head, segments]) => head + segments.map((segment) => `[${segment}]`).join(''))
  .filter((key) => !['key_id', 'sig', 'format'].includes(key));
const value = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('', 'a+b', 'x&y=z', '100%', 'line\nbreak\r\n', 'Zoë 李 😀', ' leading space'),
);
const params = fc.dictionary(name, value, { maxKeys: 25 });

describe('any params survive the wire and verify on the other side (property)', () => {
  it('POST bodies and GET queries', async () => {
    await fc.assert(
      fc.asyncProperty(params, params, async (body: FlatParams, query: FlatParams) => {
        server.requests.length = 0;
        await client.request({ method: 'POST', path: '/anything', query, body });
        await client.request({ method: 'GET', path: '/anything', query: { ...query, ...body } });
        const [post, get] = server.requests;
        expect(post?.signatureValid).toBe(true);
        expect(post?.body).toEqual(body);
        expect(get?.signatureValid).toBe(true);
        const { key_id: _k, sig: _s, format: _f, ...echoed } = get?.query ?? {};
        expect(echoed).toEqual({ ...query, ...body });
      }),
      { numRuns: 60 },
    );
  });
});
