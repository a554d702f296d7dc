import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import { PlatformHttpError } from '../../../src/platform/platform-error.js';
import type { PlatformClient } from '../../../src/platform/platform-client.js';
import type { RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import { signedCall } from '../../helpers/signed-request.js';
import { collect, failure, sandboxWithClient, userParams } from './sandbox-fixture.js';

const ISO_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const EMAIL = 'user[svc_auth_attributes][email]';

interface AtomEntry {
  '@_xmlns': string;
  id: string;
  title: string;
  updated: string;
  link: Array<Record<string, string>>;
  content: { '@_type': string; person: { displayName: string } };
}

let sandbox: RunningSandbox;
let client: PlatformClient;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ sandbox, client, close } = await sandboxWithClient({
    seed: {
      users: [
        { first_name: 'Grace', last_name: 'Hopper', email: 'grace@navy.example', client_ids: ['grace-old'] },
        { first_name: 'Alan', last_name: 'Turing', email: 'alan@elsewhere.example' },
      ],
    },
  }));
});
afterAll(() => close());

describe('users: create, get, update, delete', () => {
  it('creates a user (200) and reads it back by id, client_id and e-mail', async () => {
    const params = userParams({
      'user[salutation]': 'Dr.',
      'user[employee_attributes][position]': 'Engineer',
      'user[employee_attributes][company_attributes][name]': 'Analytical Engines',
      'user[item_attributes][tags_list]': 'math, poetry ,',
      'user[item_attributes][article_attributes][content]': '<p>Counted things.</p>',
      'user[account_attributes][web_links][blog]': 'https://blog.example.org',
      'user[account_attributes][profiles_attributes][0][custom_data]': '{"shirt":"M","vip":true}',
      'user[item_attributes][phones_attributes][0][work_number]': '+44 20 1234',
      'user[account_attributes][addresses_attributes][0][city]': 'London',
      'user[account_attributes][addresses_attributes][0][country_code]': 'GB',
    });
    const created = await client.users.create(params);
    expect(created.outcome).toBe('created');
    const user = created.user;
    expect(user).toMatchObject({
      first_name: params['user[first_name]'],
      last_name: params['user[last_name]'],
      employee: { position: 'Engineer', organization: 'Analytical Engines' },
      profile: { custom_data: { shirt: 'M', vip: true } },
      content: '<p>Counted things.</p>',
      client_ids: [params.client_id],
      web_links: { blog: 'https://blog.example.org' },
      phones: [{ work_number: '+44 20 1234', cell_number: null, fax_number: null }],
      addresses: [{ city: 'London', country_code: 'GB', country_name: 'United Kingdom', state: null }],
    });
    expect(user.tags?.map((tag) => tag.tag_name)).toEqual(['math', 'poetry']);
    expect(user.updated_on).toMatch(ISO_MICROS);
    expect(user).not.toHaveProperty('type');

    expect(await client.users.get(user.id)).toEqual(user);
    expect(await client.users.get({ clientId: params.client_id! })).toEqual(user);
    expect(await client.users.getByEmail(params[EMAIL]!)).toEqual(user);
    expect(await client.users.getByEmail('nobody@example.org')).toBeUndefined();
    expect(sandbox.counters.createsOf('user', params.client_id!)).toBe(1);
  });

  it('answers 422 to a user who is already in this conference, by client_id or by e-mail', async () => {
    const params = userParams();
    await client.users.create(params);
    const again = await failure(() => client.users.create(params));
    expect(again).toBeInstanceOf(PlatformHttpError);
    expect((again as PlatformHttpError).status).toBe(422);
    expect((again as PlatformHttpError).paramErrors).toHaveProperty('client_id');
    const sameMail = await failure(() => client.users.create({ ...userParams(), [EMAIL]: params[EMAIL]! }));
    expect((sameMail as PlatformHttpError).status).toBe(422);
    expect((sameMail as PlatformHttpError).paramErrors).toHaveProperty([EMAIL]);
  });

  it('attaches a platform-wide user with 203, ignores the details sent, and lets a PUT change them', async () => {
    const before = sandbox.state.userByEmail('grace@navy.example')!;
    const stampBefore = before.updatedOn;
    const attached = await client.users.create({
      client_id: 'grace-new',
      'user[first_name]': 'Someone',
      'user[last_name]': 'Else',
      [EMAIL]: 'grace@navy.example',
    });
    expect(attached.outcome).toBe('attached');
    expect(attached.user).toMatchObject({ first_name: 'Grace', last_name: 'Hopper' });
    expect(attached.user.client_ids).toEqual(['grace-old', 'grace-new']);
    expect(sandbox.state.users.get(attached.user.id)?.updatedOn).toBe(stampBefore);

    const updated = await client.users.update(attached.user.id, {
      'user[first_name]': 'Someone',
      'user[last_name]': 'Else',
    });
    expect(updated).toMatchObject({ first_name: 'Someone', last_name: 'Else' });
    expect(updated.updated_on).not.toBe(attached.user.updated_on);
  });

  it('finds a seeded platform-wide user by client_id on create (203) too', async () => {
    const alan = sandbox.state.userByEmail('alan@elsewhere.example')!;
    sandbox.state.addUserClientId(alan, 'alan-1');
    const answer = await signedCall(sandbox, 'POST', '/user', {
      body: {
        client_id: 'alan-1',
        'user[first_name]': 'X',
        'user[last_name]': 'Y',
        [EMAIL]: 'other@x.example',
      },
    });
    expect(answer.status).toBe(203);
    expect(answer.json<{ first_name: string }>().first_name).toBe('Alan');
  });

  it('delete removes the user from this conference only: 404 after, and a re-create answers 203', async () => {
    const params = userParams();
    const { user } = await client.users.create(params);
    const deleted = await signedCall(sandbox, 'DELETE', `/user/member/${user.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe('');
    const gone = await failure(() => client.users.get(user.id));
    expect((gone as PlatformHttpError).status).toBe(404);
    const back = await client.users.create({ ...params, 'user[first_name]': 'Changed' });
    expect(back.outcome).toBe('attached');
    expect(back.user).toMatchObject({ id: user.id, first_name: params['user[first_name]'] });
  });

  it('deletes through /user/{id} and through client_id as well', async () => {
    const a = await client.users.create(userParams());
    expect((await signedCall(sandbox, 'DELETE', `/user/${a.user.id}`)).status).toBe(200);
    const params = userParams();
    await client.users.create(params);
    await client.users.delete({ clientId: params.client_id! });
    expect(
      (await signedCall(sandbox, 'GET', '/user/member', { query: { client_id: params.client_id! } })).status,
    ).toBe(404);
  });

  it('updates by client_id standing in for {id}, and adds a second client_id with an id path', async () => {
    const params = userParams();
    const { user } = await client.users.create(params);
    const byClient = await client.users.update(
      { clientId: params.client_id! },
      { 'user[last_name]': 'Renamed' },
    );
    expect(byClient.last_name).toBe('Renamed');
    expect(byClient.first_name).toBe(params['user[first_name]']);
    const more = await signedCall(sandbox, 'PUT', `/user/member/${user.id}`, {
      body: { client_id: 'second-id' },
    });
    expect(more.json<{ client_ids: string[] }>().client_ids).toEqual([params.client_id, 'second-id']);
    const taken = await signedCall(sandbox, 'PUT', `/user/member/${user.id}`, {
      body: { client_id: 'grace-old' },
    });
    expect(taken.status).toBe(422);
  });

  it('answers 404 for unknown ids, 422 naming the param for invalid updates', async () => {
    expect(((await failure(() => client.users.get(999_999))) as PlatformHttpError).status).toBe(404);
    expect(
      ((await failure(() => client.users.update(999_999, { 'user[first_name]': 'X' }))) as PlatformHttpError)
        .status,
    ).toBe(404);
    const { user } = await client.users.create(userParams());
    const bad = (await failure(() =>
      client.users.update(user.id, { 'user[salutation]': 'x'.repeat(21) }),
    )) as PlatformHttpError;
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.paramErrors)).toEqual(['user[salutation]']);
    const other = await client.users.create(userParams());
    const taken = await signedCall(sandbox, 'PUT', `/user/member/${user.id}`, {
      body: { [EMAIL]: other.user.id ? sandbox.state.users.get(other.user.id)!.email : '' },
    });
    expect(taken.status).toBe(422);
  });
});

describe('users: lists, pages and formats', () => {
  it('pages with user_page and limit (default 25, max 100) and ends with an empty page', async () => {
    for (let i = 0; i < 30; i += 1) await client.users.create(userParams({ 'user[last_name]': `Pager${i}` }));
    const total = sandbox.state.conferenceUsers().length;
    const first = await signedCall(sandbox, 'GET', '/user');
    expect(first.json<unknown[]>()).toHaveLength(25);
    const big = await signedCall(sandbox, 'GET', '/user', { query: { limit: '1000' } });
    expect(big.json<unknown[]>()).toHaveLength(Math.min(100, total));
    const past = await signedCall(sandbox, 'GET', '/user', { query: { user_page: '999' } });
    expect(past.status).toBe(200);
    expect(past.json<unknown[]>()).toEqual([]);
    const all = await collect(client.users.list({ limit: 7 }));
    expect(all).toHaveLength(total);
    expect(new Set(all.map((user) => user.id)).size).toBe(total);
    const bad = await signedCall(sandbox, 'GET', '/user', { query: { user_page: 'zero' } });
    expect(bad.status).toBe(422);
    expect(bad.json<{ errors: object }>().errors).toHaveProperty('user_page');
  });

  it('searches with terms', async () => {
    await client.users.create(userParams({ 'user[first_name]': 'Zebulon', 'user[last_name]': 'Quux' }));
    const found = await collect(client.users.list({ terms: 'zebulon quux' }));
    expect(found.map((user) => user.first_name)).toEqual(['Zebulon']);
  });

  it('serves XML with hyphenated names, type= and nil= attributes', async () => {
    const { user } = await client.users.create(userParams({ 'user[item_attributes][tags_list]': 'x' }));
    const answer = await signedCall(sandbox, 'GET', `/user/member/${user.id}`, { query: { format: 'xml' } });
    expect(answer.headers['content-type']).toMatch(/application\/xml/);
    expect(answer.text).toContain(`<id type="integer">${user.id}</id>`);
    expect(answer.text).toContain('<first-name>');
    expect(answer.text).toContain('<content nil="true"/>');
    expect(answer.text).toContain('<tags type="array"><tag><id type="integer">');
    expect(answer.text).toMatch(/<updated-on type="datetime">[^<]+Z<\/updated-on>/);
    const parsed = new XMLParser({ ignoreAttributes: false }).parse(answer.text) as {
      user: Record<string, unknown>;
    };
    expect(parsed.user['last-name']).toBe(user.last_name);
    const list = await signedCall(sandbox, 'GET', '/user', { query: { format: 'xml', limit: '2' } });
    expect(list.text).toMatch(/^<\?xml[^>]*>\n<users type="array"><user>/);
  });

  it('serves Atom for one user and for a list', async () => {
    const { user } = await client.users.create(
      userParams({ 'user[first_name]': 'Ada', 'user[last_name]': 'Atom' }),
    );
    const answer = await signedCall(sandbox, 'GET', `/user/member/${user.id}`, { query: { format: 'atom' } });
    expect(answer.headers['content-type']).toMatch(/application\/atom\+xml/);
    const entry = (new XMLParser({ ignoreAttributes: false }).parse(answer.text) as { entry: AtomEntry })
      .entry;
    expect(entry['@_xmlns']).toBe('http://www.w3.org/2005/Atom');
    expect(entry.id).toBe(`${sandbox.url}/user/member/${user.id}`);
    expect(entry.title).toBe('Ada Atom');
    expect(entry.updated).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
    expect(entry.link.map((link) => link['@_rel'])).toEqual(['self', 'alternate']);
    expect(entry.content['@_type']).toBe('application/xml');
    expect(entry.content.person.displayName).toBe('Ada Atom');
    const feed = await signedCall(sandbox, 'GET', '/user', { query: { format: 'atom', limit: '3' } });
    expect(feed.text).toContain('<feed xmlns="http://www.w3.org/2005/Atom">');
    expect(feed.text.match(/<entry>/g)).toHaveLength(3);
  });

  it('refuses formats it does not serve with 406', async () => {
    expect((await signedCall(sandbox, 'GET', '/user', { query: { format: 'csv' } })).status).toBe(406);
    expect((await signedCall(sandbox, 'GET', '/event', { query: { format: 'atom' } })).status).toBe(406);
  });
});
