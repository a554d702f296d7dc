import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlatParams } from '../../../src/model/params.js';
import type { PlatformClient } from '../../../src/platform/platform-client.js';
import { sandboxWithClient } from './sandbox-fixture.js';

let client: PlatformClient;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ client, close } = await sandboxWithClient());
});
afterAll(() => close());

const codePoints = (text: string): number => Array.from(text).length;
const name = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 24 })
  .filter((text) => text.trim() !== '' && codePoints(text) <= 64);
const word = fc.stringMatching(/^[a-z][a-z ]{0,10}[a-z]$/);
const jsonObject = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });

/** The optional parts of a user: each one either sent or not. */
const userFields = fc.record(
  {
    first_name: name,
    last_name: name,
    position: fc.tuple(name, name),
    tags: fc.array(word, { maxLength: 4 }),
    bio: fc.string({ maxLength: 40 }),
    blog: fc.webUrl({ validSchemes: ['https'] }),
    custom: jsonObject,
    phone: fc.stringMatching(/^\+?[0-9][0-9 ]{3,14}$/),
    city: name,
  },
  { requiredKeys: [] },
);
type UserFields = typeof userFields extends fc.Arbitrary<infer T> ? T : never;

const xmlText = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function paramsOf(fields: UserFields): FlatParams {
  const params: FlatParams = {};
  if (fields.first_name !== undefined) params['user[first_name]'] = fields.first_name;
  if (fields.last_name !== undefined) params['user[last_name]'] = fields.last_name;
  if (fields.position) {
    params['user[employee_attributes][position]'] = fields.position[0];
    params['user[employee_attributes][company_attributes][name]'] = fields.position[1];
  }
  if (fields.tags) params['user[item_attributes][tags_list]'] = fields.tags.join(', ');
  if (fields.bio !== undefined) {
    params['user[item_attributes][article_attributes][content]'] = `<p>${xmlText(fields.bio)}</p>`;
  }
  if (fields.blog) params['user[account_attributes][web_links][blog]'] = fields.blog;
  if (fields.custom) {
    params['user[account_attributes][profiles_attributes][0][custom_data]'] = JSON.stringify(fields.custom);
  }
  if (fields.phone) params['user[item_attributes][phones_attributes][0][cell_number]'] = fields.phone;
  if (fields.city) {
    params['user[account_attributes][addresses_attributes][0][city]'] = fields.city;
    params['user[account_attributes][addresses_attributes][0][country_code]'] = 'DE';
  }
  return params;
}

/** What §2.3 shows of the fields that were sent, as the user should read back. */
function expectedOf(fields: UserFields): Record<string, unknown> {
  const expected: Record<string, unknown> = {};
  if (fields.first_name !== undefined) expected.first_name = fields.first_name;
  if (fields.last_name !== undefined) expected.last_name = fields.last_name;
  if (fields.position)
    expected.employee = expect.objectContaining({
      position: fields.position[0],
      organization: fields.position[1],
    });
  if (fields.tags)
    expected.tags = fields.tags.map((tag): unknown => expect.objectContaining({ tag_name: tag }));
  if (fields.bio !== undefined) expected.content = `<p>${xmlText(fields.bio)}</p>`;
  if (fields.blog) expected.web_links = expect.objectContaining({ blog: fields.blog });
  if (fields.custom) expected.profile = { custom_data: JSON.parse(JSON.stringify(fields.custom)) as unknown };
  if (fields.phone) expected.phones = [{ work_number: null, cell_number: fields.phone, fax_number: null }];
  if (fields.city) expected.addresses = [expect.objectContaining({ city: fields.city, country_code: 'DE' })];
  return expected;
}

let serial = 0;

describe('user round trip (property)', () => {
  it('create → get → update → get: sent fields read back as sent; fields not sent stay', async () => {
    await fc.assert(
      fc.asyncProperty(
        userFields.map((fields) => ({
          ...fields,
          first_name: fields.first_name ?? 'A',
          last_name: fields.last_name ?? 'B',
        })),
        userFields,
        async (created, changes) => {
          serial += 1;
          const clientId = `prop-${serial}`;
          const result = await client.users.create({
            ...paramsOf(created),
            client_id: clientId,
            'user[svc_auth_attributes][email]': `prop${serial}@example.org`,
          });
          expect(result.outcome).toBe('created');
          expect(result.user).toMatchObject(expectedOf(created));
          const read = await client.users.get(result.user.id);
          expect(read).toEqual(result.user);

          const updated = await client.users.update({ clientId }, paramsOf(changes));
          expect(updated).toMatchObject({ ...expectedOf(created), ...expectedOf(changes) });
          expect(updated.client_ids).toEqual([clientId]);
          expect(await client.users.get(result.user.id)).toEqual(updated);
        },
      ),
      { numRuns: 60 },
    );
  });
});
