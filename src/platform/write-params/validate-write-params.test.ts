import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { FlatParams } from '../../model/params.js';
import { COUNTRY_CODES } from './country-codes.js';
import { MEMBERSHIPS } from './enums.js';
import {
  knownParamMatcher,
  validateWriteParams,
  WRITE_OPERATIONS,
  writeOperationSchema,
} from './validate-write-params.js';

const user = { 'user[first_name]': 'Ada', 'user[last_name]': 'Lovelace' };

describe('validateWriteParams', () => {
  it('builds the auth param names from the vendor word', () => {
    const acme = { ...user, 'user[acme_auth_attributes][email]': 'ada@example.com' };
    expect(validateWriteParams('user.create', acme, { vendor: 'acme' })).toEqual([]);
    expect(validateWriteParams('user.create', acme, { vendor: 'svc' })).toEqual([
      expect.objectContaining({ param: 'user[svc_auth_attributes][email]', code: 'REQUIRED' }),
    ]);
    const issues = validateWriteParams(
      'user.update',
      { 'user[acme_auth_attributes][password]': 'x', 'user[svc_auth_attributes][email]': 'a@b.co' },
      { vendor: 'acme', strict: true },
    );
    expect(issues.map((i) => [i.param, i.code])).toEqual([
      ['user[acme_auth_attributes][password]', 'PASSWORD_NOT_ALLOWED'],
      ['user[svc_auth_attributes][email]', 'UNKNOWN_PARAM'],
    ]);
  });

  it('reports unknown params only in strict mode, never the transport params', () => {
    const params = {
      ...user,
      'user[svc_auth_attributes][email]': 'a@b.co',
      'user[nickname]': 'ada',
      key_id: '1',
      sig: 'x',
      format: 'json',
    };
    expect(validateWriteParams('user.create', params, { vendor: 'svc' })).toEqual([]);
    expect(validateWriteParams('user.create', params, { vendor: 'svc', strict: true })).toEqual([
      {
        param: 'user[nickname]',
        code: 'UNKNOWN_PARAM',
        message: 'not a param of this operation: the platform would ignore it',
      },
    ]);
  });

  it('reports every problem of a request at once', () => {
    const issues = validateWriteParams(
      'user.create',
      {
        'user[first_name]': '',
        'user[last_name]': 'x'.repeat(70),
        'user[salutation]': 'The Right Honourable Lady',
        'user[membership]': 'vip',
        'user[svc_auth_attributes][email]': 'ada@',
        'user[employee_attributes][position]': 'CTO',
        'user[account_attributes][addresses_attributes][0][country_code]': 'ZZ',
        'user[account_attributes][profiles_attributes][0][custom_data]': '[]',
        'user[item_attributes][article_attributes][content]': '<p>',
      },
      { vendor: 'svc' },
    );
    expect(issues.map((i) => i.code)).toEqual([
      'TOO_LONG',
      'REQUIRED',
      'TOO_LONG',
      'INVALID_VALUE',
      'INVALID_EMAIL',
      'REQUIRED',
      'INVALID_XHTML',
      'REQUIRED',
      'INVALID_COUNTRY_CODE',
      'INVALID_JSON_OBJECT',
    ]);
  });

  it('never repeats a password value in any message, whatever the operation', () => {
    const password = fc.string({ minLength: 8, maxLength: 30 }).filter((s) => s.trim().length >= 8);
    fc.assert(
      fc.property(
        fc.constantFrom(...WRITE_OPERATIONS),
        password,
        fc.boolean(),
        (operation, secret, strict) => {
          const params = {
            'user[svc_auth_attributes][password]': secret,
            'user[password]': secret,
            password: secret,
          };
          const issues = validateWriteParams(operation, params, { vendor: 'svc', strict });
          for (const issue of issues) expect(issue.message).not.toContain(secret);
        },
      ),
    );
  });

  it('keeps messages short for megabyte values', () => {
    const bio = `<p>${'x'.repeat(2_000_000)}<b></p>`;
    const issues = validateWriteParams(
      'user.update',
      { 'user[item_attributes][article_attributes][content]': bio, 'user[last_name]': 'n'.repeat(2_000_000) },
      { vendor: 'svc' },
    );
    expect(issues.map((i) => i.code)).toEqual(['TOO_LONG', 'INVALID_XHTML']);
    expect(issues[1]?.message).toContain('<b> at line 1, column 2000004 is closed by </p>');
    for (const issue of issues) expect(issue.message.length).toBeLessThan(200);
  });

  it('knows its operations as a zod enum', () => {
    expect(writeOperationSchema.safeParse('user.create').success).toBe(true);
    expect(writeOperationSchema.safeParse('user.delete').success).toBe(false);
    expect(knownParamMatcher('schedule.replace', 'svc')('event_client_ids[3]')).toBe(true);
  });
});

// Any payload built only from valid values must pass, whatever the vendor word.
const nonBlank = (max: number) =>
  fc.string({ unit: 'binary', minLength: 1, maxLength: max }).filter((s) => s.trim() !== '');
/** One line of text as names and companies must be: no control or direction-changing character. */
// eslint-disable-next-line no-control-regex -- control characters are what is left out
const ONE_LINE = /^[^\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]*$/;
const oneLine = (max: number) => nonBlank(max).filter((s) => ONE_LINE.test(s));
const countryAndState = fc.constantFrom(...COUNTRY_CODES).chain((country) =>
  fc.record({
    country: fc.constant(country),
    state: country === 'US' || country === 'CA' ? nonBlank(20) : fc.option(nonBlank(20), { nil: undefined }),
  }),
);
const address = fc.record({
  city: nonBlank(40),
  street: fc.option(nonBlank(40), { nil: undefined }),
  place: countryAndState,
});
const bio = fc
  .array(
    fc.string({ maxLength: 20 }).map((s) =>
      s
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        // `]]>` may not stand in XHTML text (the validator refuses it rightly): escaped as a writer must.
        .replace(/>/g, '&gt;')
        .replace(/[^\P{Cc}\t\n\r]/gu, ''),
    ),
    {
      maxLength: 3,
    },
  )
  .map((paragraphs) => paragraphs.map((p) => `<p>${p}&nbsp;<br/></p>`).join(''));
const validUser = fc.record({
  vendor: fc.stringMatching(/^[a-z][a-z0-9]{1,9}$/),
  firstName: oneLine(64),
  lastName: oneLine(64),
  salutation: fc.option(
    fc.string({ unit: 'binary', maxLength: 20 }).filter((s) => ONE_LINE.test(s)),
    { nil: undefined },
  ),
  membership: fc.option(fc.constantFrom(...MEMBERSHIPS), { nil: undefined }),
  email: fc.emailAddress().filter((e) => e.split('@')[1]!.includes('.') && e.length <= 254),
  confirm: fc.boolean(),
  job: fc.option(fc.tuple(oneLine(40), oneLine(40)), { nil: undefined }),
  clientId: fc.option(nonBlank(64), { nil: undefined }),
  addresses: fc.array(address, { maxLength: 3 }),
  customData: fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }),
  website: fc.option(fc.webUrl(), { nil: undefined }),
  icon: fc.option(fc.webUrl(), { nil: undefined }),
  bio: fc.option(bio, { nil: undefined }),
  preferences: fc.array(fc.tuple(nonBlank(20), fc.constantFrom('1', '0')), { maxLength: 3 }),
});

describe('property: valid user payloads have no issues', () => {
  it('holds for generated payloads', () => {
    fc.assert(
      fc.property(validUser, fc.boolean(), (u, strict) => {
        const auth = `user[${u.vendor}_auth_attributes]`;
        const params: FlatParams = {
          'user[first_name]': u.firstName,
          'user[last_name]': u.lastName,
          [`${auth}[email]`]: u.email,
        };
        if (u.salutation !== undefined) params['user[salutation]'] = u.salutation;
        if (u.membership !== undefined) params['user[membership]'] = u.membership;
        if (u.confirm) params[`${auth}[email_confirmation]`] = u.email;
        if (u.job) {
          params['user[employee_attributes][position]'] = u.job[0];
          params['user[employee_attributes][company_attributes][name]'] = u.job[1];
        }
        if (u.clientId !== undefined) params.client_id = u.clientId;
        u.addresses.forEach((a, n) => {
          const prefix = `user[account_attributes][addresses_attributes][${n}]`;
          params[`${prefix}[city]`] = a.city;
          params[`${prefix}[country_code]`] = a.place.country;
          if (a.place.state !== undefined) params[`${prefix}[state]`] = a.place.state;
          if (a.street !== undefined) params[`${prefix}[street]`] = a.street;
        });
        if (u.customData)
          params['user[account_attributes][profiles_attributes][0][custom_data]'] = JSON.stringify(
            u.customData,
          );
        if (u.website !== undefined) params['user[account_attributes][web_links][website]'] = u.website;
        if (u.icon !== undefined) params['user[item_attributes][icon_uri]'] = u.icon;
        if (u.bio !== undefined) params['user[item_attributes][article_attributes][content]'] = u.bio;
        u.preferences.forEach(([key, value], n) => {
          params[`user[account_attributes][preferences_attributes][${n}][key]`] = key;
          params[`user[account_attributes][preferences_attributes][${n}][value]`] = value;
        });
        expect(validateWriteParams('user.create', params, { vendor: u.vendor, strict })).toEqual([]);
        const { [`${auth}[email_confirmation]`]: _confirmation, ...forUpdate } = params;
        expect(validateWriteParams('user.update', forUpdate, { vendor: u.vendor, strict })).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
