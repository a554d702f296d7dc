import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeForm } from '../../../src/platform/params.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import { rawCall, signedCall, signedQueryString } from '../../helpers/signed-request.js';
import { SIGNING_KEY, userParams } from './sandbox-fixture.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ signingKey: SIGNING_KEY });
});
afterAll(() => sandbox.close());

async function stillServing(): Promise<void> {
  expect((await signedCall(sandbox, 'GET', '/user')).status).toBe(200);
}

describe('signatures (§5)', () => {
  it('401 for a wrong key, a missing sig, an unknown key_id, or a param changed after signing', async () => {
    const wrongKey = await signedCall(sandbox, 'GET', '/user', { signingKey: 'not-the-key' });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.json<{ error: string }>().error).toMatch(/signature does not match/);
    expect(wrongKey.text).not.toContain(SIGNING_KEY);
    expect((await rawCall(sandbox.url, 'GET', '/user?key_id=1')).json<{ error: string }>().error).toMatch(
      /sig/,
    );
    expect((await rawCall(sandbox.url, 'GET', '/user')).status).toBe(401);
    const otherKeyId = await signedCall({ ...sandbox, keyId: 2 }, 'GET', '/user');
    expect(otherKeyId.status).toBe(401);
    const query = signedQueryString(sandbox, { terms: 'ada' });
    const tampered = await rawCall(sandbox.url, 'GET', `/user?${query.replace('terms=ada', 'terms=bob')}`);
    expect(tampered.status).toBe(401);
    const body = userParams();
    const bodyTampered = await rawCall(sandbox.url, 'POST', `/user?${signedQueryString(sandbox, {}, body)}`, {
      body: encodeForm({ ...body, 'user[first_name]': 'Mallory' }),
      headers: FORM,
    });
    expect(bodyTampered.status).toBe(401);
  });

  it('leaves blank params out of the signature and accepts an upper-case sig', async () => {
    const query = signedQueryString(sandbox, { terms: '' });
    expect((await rawCall(sandbox.url, 'GET', `/user?${query}`)).status).toBe(200);
    const upper = query.replace(/sig=([0-9a-f]+)/, (_, sig: string) => `sig=${sig.toUpperCase()}`);
    expect((await rawCall(sandbox.url, 'GET', `/user?${upper}`)).status).toBe(200);
  });

  it('/signature_test answers GET, POST and PUT with the expected string (key masked) and the verdict', async () => {
    for (const method of ['GET', 'POST', 'PUT']) {
      const good = await signedCall(sandbox, method, '/signature_test', {
        query: { a: '1' },
        ...(method === 'GET' ? {} : { body: { 'user[first_name]': 'Ada' } }),
      });
      expect(good.status).toBe(200);
      const verdict = good.json<{ signature_valid: boolean; expected_signing_string: string }>();
      expect(verdict.signature_valid).toBe(true);
      expect(verdict.expected_signing_string).toBe(
        `a=1key_id=1${method === 'GET' ? '' : 'user[first_name]=Ada'}<signing key>`,
      );
    }
    const bad = await signedCall(sandbox, 'GET', '/signature_test', { signingKey: 'wrong' });
    expect(bad.status).toBe(200);
    expect(bad.json<{ signature_valid: boolean; problem: string }>()).toMatchObject({
      signature_valid: false,
    });
    expect(bad.text).not.toContain(SIGNING_KEY);
    expect((await signedCall(sandbox, 'DELETE', '/signature_test')).status).toBe(405);
  });
});

describe('hand-built bad requests get a clear 4xx and never crash the server', () => {
  it('raw form bodies with odd encodings are read as the sender meant', async () => {
    const params = {
      client_id: 'odd & = + % [x]',
      'user[first_name]': 'Zoë 😀',
      'user[last_name]': "O'Brien-Müller",
      'user[svc_auth_attributes][email]': 'odd+tag@example.org',
    };
    const answer = await rawCall(sandbox.url, 'POST', `/user?${signedQueryString(sandbox, {}, params)}`, {
      body: encodeForm(params),
      headers: FORM,
    });
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ first_name: 'Zoë 😀', client_ids: ['odd & = + % [x]'] });
    // Unencoded brackets, `+` for spaces, a charset parameter on the content type.
    const loose = {
      'user[first_name]': 'Ann Lee',
      'user[last_name]': 'X',
      'user[svc_auth_attributes][email]': 'ann@example.org',
    };
    const text =
      'user[first_name]=Ann+Lee&user[last_name]=X&user[svc_auth_attributes][email]=ann%40example.org';
    const looseAnswer = await rawCall(sandbox.url, 'POST', `/user?${signedQueryString(sandbox, {}, loose)}`, {
      body: text,
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
    });
    expect(looseAnswer.status).toBe(200);
    expect(looseAnswer.json<{ first_name: string }>().first_name).toBe('Ann Lee');
  });

  it('params in the query work for any method', async () => {
    const params = userParams();
    const answer = await rawCall(sandbox.url, 'POST', `/user?${signedQueryString(sandbox, params)}`);
    expect(answer.status).toBe(200);
  });

  it('a missing param is a 422 that names it', async () => {
    const answer = await signedCall(sandbox, 'POST', '/user', {
      body: { 'user[first_name]': 'A', 'user[svc_auth_attributes][email]': 'a@example.org' },
    });
    expect(answer.status).toBe(422);
    const body = answer.json<{ error: string; errors: Record<string, string[]> }>();
    expect(Object.keys(body.errors)).toEqual(['user[last_name]']);
    expect(body.error).toContain('user[last_name]');
  });

  it('a malformed percent-escape is a 400, in the query or the body', async () => {
    const inQuery = await rawCall(
      sandbox.url,
      'GET',
      `/user?terms=%E0%A4%A&${signedQueryString(sandbox, {})}`,
    );
    expect(inQuery.status).toBe(400);
    expect(inQuery.json<{ error: string }>().error).toMatch(/percent-escape/);
    const inBody = await rawCall(sandbox.url, 'POST', `/user?${signedQueryString(sandbox, {})}`, {
      body: 'user[first_name]=100%',
      headers: FORM,
    });
    expect(inBody.status).toBe(400);
    await stillServing();
  });

  it('a 10 MB body is a 413, and the server goes on', async () => {
    const body = `user[first_name]=${'a'.repeat(10 * 1024 * 1024)}`;
    const answer = await rawCall(sandbox.url, 'POST', `/user?${signedQueryString(sandbox, {})}`, {
      body,
      headers: FORM,
    });
    expect(answer.status).toBe(413);
    expect(answer.json<{ error: string }>().error).toMatch(/larger than 1048576 bytes/);
    await stillServing();
  });

  it('a body that is not a form is 415; unknown paths 404; wrong methods 405 with Allow', async () => {
    const json = await rawCall(sandbox.url, 'POST', `/user?${signedQueryString(sandbox, {})}`, {
      body: '{"user":{}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(json.status).toBe(415);
    const unknown = await signedCall(sandbox, 'GET', '/users');
    expect(unknown.status).toBe(404);
    expect(unknown.json<{ error: string }>().error).toBe('No such path: GET /users');
    expect((await signedCall(sandbox, 'GET', '/user/member/1/extra')).status).toBe(404);
    const wrong = await signedCall(sandbox, 'PATCH', '/user/member/1');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('GET, PUT, DELETE');
    expect((await signedCall(sandbox, 'GET', '/event/schedule')).status).toBe(405);
  });

  it('odd ids and pages are 404 or 422, never a crash', async () => {
    expect((await signedCall(sandbox, 'GET', '/user/member/abc')).status).toBe(404);
    expect((await signedCall(sandbox, 'GET', '/user/member/-1')).status).toBe(404);
    expect((await signedCall(sandbox, 'GET', '/user/member/%ZZ')).status).toBe(404);
    expect((await signedCall(sandbox, 'GET', '/user/member/99999999999999999999')).status).toBe(404);
    expect((await signedCall(sandbox, 'GET', '/user', { query: { limit: '-5' } })).status).toBe(422);
    expect((await signedCall(sandbox, 'PUT', '/user/member')).status).toBe(400);
    await stillServing();
  });

  it('a format suffix on the path works like format=', async () => {
    const created = (await signedCall(sandbox, 'POST', '/user', { body: userParams() })).json<{
      id: number;
    }>();
    const xml = await signedCall(sandbox, 'GET', `/user/member/${created.id}.xml`);
    expect(xml.status).toBe(200);
    expect(xml.text).toContain('<user>');
  });
});
