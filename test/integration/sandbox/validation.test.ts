import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlatParams } from '../../../src/model/params.js';
import type { PlatformClient } from '../../../src/platform/platform-client.js';
import { PlatformHttpError } from '../../../src/platform/platform-error.js';
import { eventParams, failure, sandboxWithClient, userParams } from './sandbox-fixture.js';

let client: PlatformClient;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ client, close } = await sandboxWithClient());
});
afterAll(() => close());

const ADDRESS = 'user[account_attributes][addresses_attributes][0]';
const PREFERENCE = 'user[account_attributes][preferences_attributes][0]';

/** [rule, params added to a valid create, the param the 422 must name]. */
const USER_CASES: Array<[string, FlatParams, string]> = [
  ['salutation at most 20', { 'user[salutation]': 'S'.repeat(21) }, 'user[salutation]'],
  ['first name at most 64', { 'user[first_name]': 'F'.repeat(65) }, 'user[first_name]'],
  ['last name at most 64', { 'user[last_name]': 'L'.repeat(65) }, 'user[last_name]'],
  ['client_id at most 64', { client_id: 'c'.repeat(65) }, 'client_id'],
  ['membership enum', { 'user[membership]': 'vip' }, 'user[membership]'],
  [
    'e-mail syntax',
    { 'user[svc_auth_attributes][email]': 'not-an-address' },
    'user[svc_auth_attributes][email]',
  ],
  [
    'position needs a company name',
    { 'user[employee_attributes][position]': 'CTO' },
    'user[employee_attributes][company_attributes][name]',
  ],
  ['address needs a city', { [`${ADDRESS}[country_code]`]: 'DE' }, `${ADDRESS}[city]`],
  [
    'US address needs a state',
    { [`${ADDRESS}[city]`]: 'Austin', [`${ADDRESS}[country_code]`]: 'US' },
    `${ADDRESS}[state]`,
  ],
  [
    'CA address needs a state',
    { [`${ADDRESS}[city]`]: 'Halifax', [`${ADDRESS}[country_code]`]: 'CA' },
    `${ADDRESS}[state]`,
  ],
  [
    'ISO 3166 country code',
    { [`${ADDRESS}[city]`]: 'Atlantis', [`${ADDRESS}[country_code]`]: 'XX' },
    `${ADDRESS}[country_code]`,
  ],
  [
    'preference value 1 or 0',
    { [`${PREFERENCE}[key]`]: 'newsletter', [`${PREFERENCE}[value]`]: 'yes' },
    `${PREFERENCE}[value]`,
  ],
  [
    'custom_data a JSON object',
    { 'user[account_attributes][profiles_attributes][0][custom_data]': '{"a":' },
    'user[account_attributes][profiles_attributes][0][custom_data]',
  ],
  [
    'bio well-formed XHTML',
    { 'user[item_attributes][article_attributes][content]': '<p>open <b>bold</p>' },
    'user[item_attributes][article_attributes][content]',
  ],
];

const EVENT_CASES: Array<[string, FlatParams, string]> = [
  ['name required', { 'event[item_attributes][display_value]': '' }, 'event[item_attributes][display_value]'],
  [
    'description well-formed XHTML',
    { 'event[item_attributes][article][content]': '<div>' },
    'event[item_attributes][article][content]',
  ],
  ['start an XML dateTime', { 'event[start]': '01/06/2026 09:00' }, 'event[start]'],
  ['finish not before start', { 'event[finish]': '2026-06-01T08:59:59+02:00' }, 'event[finish]'],
  [
    'track id or name, not both',
    { 'event[track_id]': '1', 'event[track_name]': 'Main' },
    'event[track_name]',
  ],
  ['max_attendees an integer', { 'event[max_attendees]': 'many' }, 'event[max_attendees]'],
];

describe('validation: each rule answers 422 naming its param', () => {
  it.each(USER_CASES)('user create: %s', async (_rule, params, param) => {
    const error = (await failure(() => client.users.create(userParams(params)))) as PlatformHttpError;
    expect(error).toBeInstanceOf(PlatformHttpError);
    expect(error.status).toBe(422);
    expect(Object.keys(error.paramErrors)).toContain(param);
  });

  it.each(EVENT_CASES)('event create: %s', async (_rule, params, param) => {
    const error = (await failure(() => client.events.create(eventParams(params)))) as PlatformHttpError;
    expect(error.status).toBe(422);
    expect(Object.keys(error.paramErrors)).toContain(param);
  });

  it('an update is checked with the same rules (only what is sent)', async () => {
    const { user } = await client.users.create(userParams());
    const error = (await failure(() =>
      client.users.update(user.id, { 'user[membership]': 'king' }),
    )) as PlatformHttpError;
    expect(Object.keys(error.paramErrors)).toEqual(['user[membership]']);
    const fine = await client.users.update(user.id, { 'user[membership]': 'press' });
    expect(fine.id).toBe(user.id);
  });
});
