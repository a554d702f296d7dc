import { describe, expect, it } from 'vitest';

import type { FlatParams } from '../../model/params.js';
import { validateWriteParams } from './validate-write-params.js';

const EMAIL = 'user[svc_auth_attributes][email]';
const ADDR = 'user[account_attributes][addresses_attributes]';
const PREFS = 'user[account_attributes][preferences_attributes]';
const CUSTOM = 'user[account_attributes][profiles_attributes][0][custom_data]';
const BIO = 'user[item_attributes][article_attributes][content]';

const minimal: FlatParams = {
  'user[first_name]': 'Ada',
  'user[last_name]': 'Lovelace',
  [EMAIL]: 'ada@example.com',
};

const full: FlatParams = {
  ...minimal,
  client_id: 'eb-1001',
  'user[salutation]': 'Countess',
  'user[membership]': 'speaker',
  'user[svc_auth_attributes][email_confirmation]': 'ada@example.com',
  'user[svc_auth_attributes][password]': 'correct horse',
  'user[account_attributes][account_name]': 'ada',
  'user[employee_attributes][position]': 'Analyst',
  'user[employee_attributes][company_attributes][name]': 'Analytical Engines Ltd',
  'user[item_attributes][icon_uri]': 'https://example.com/ada.png',
  'user[item_attributes][tags_list]': 'math, engines',
  'user[item_attributes][phones_attributes][0][work_number]': '+44 20 7946 0000',
  'user[item_attributes][phones_attributes][1][cell_number]': '+44 7700 900000',
  [BIO]: '<p>First programmer &amp; poet&nbsp;of science.</p>',
  'user[account_attributes][web_links][website]': 'https://ada.example.com/',
  'user[account_attributes][web_links][twitter]': 'https://twitter.com/ada',
  'user[account_attributes][web_links][mastodon]': 'https://mastodon.social/@ada',
  [CUSTOM]: '{"ticket":"VIP","diet":["vegan"]}',
  [`${PREFS}[0][key]`]: 'email_notifications',
  [`${PREFS}[0][value]`]: '1',
  [`${ADDR}[0][street]`]: '1 Main St',
  [`${ADDR}[0][city]`]: 'Springfield',
  [`${ADDR}[0][state]`]: 'IL',
  [`${ADDR}[0][postal_code]`]: '62701',
  [`${ADDR}[0][country_code]`]: 'US',
  [`${ADDR}[1][city]`]: 'Berlin',
  [`${ADDR}[1][country_code]`]: 'DE',
};

const create = (params: FlatParams, strict = false) =>
  validateWriteParams('user.create', params, { vendor: 'svc', strict });
const update = (params: FlatParams) => validateWriteParams('user.update', params, { vendor: 'svc' });
const codes = (issues: { param: string; code: string }[]) => issues.map((i) => [i.param, i.code]);

describe('user.create', () => {
  it('accepts the minimal and the full payload', () => {
    expect(create(minimal)).toEqual([]);
    expect(create(full, true)).toEqual([]);
  });

  it('requires first name, last name and e-mail, blank counting as missing', () => {
    expect(create({})).toEqual([
      {
        param: 'user[first_name]',
        code: 'REQUIRED',
        message: 'the first name is required, but it is missing',
      },
      { param: 'user[last_name]', code: 'REQUIRED', message: 'the last name is required, but it is missing' },
      { param: EMAIL, code: 'REQUIRED', message: 'the e-mail address is required, but it is missing' },
    ]);
    expect(create({ ...minimal, 'user[first_name]': '  ' })).toEqual([
      { param: 'user[first_name]', code: 'REQUIRED', message: 'the first name is required, but it is blank' },
    ]);
  });

  it('limits salutation to 20 and names to 64 characters, counting code points', () => {
    expect(create({ ...minimal, 'user[salutation]': 'x'.repeat(20) })).toEqual([]);
    expect(codes(create({ ...minimal, 'user[salutation]': 'x'.repeat(21) }))).toEqual([
      ['user[salutation]', 'TOO_LONG'],
    ]);
    // 64 characters that are 128 UTF-8 bytes, or 128 UTF-16 units, are still 64.
    expect(
      create({ ...minimal, 'user[first_name]': 'é'.repeat(64), 'user[last_name]': '😀'.repeat(64) }),
    ).toEqual([]);
    const issues = create({
      ...minimal,
      'user[first_name]': 'é'.repeat(65),
      'user[last_name]': '漢'.repeat(65),
    });
    expect(codes(issues)).toEqual([
      ['user[first_name]', 'TOO_LONG'],
      ['user[last_name]', 'TOO_LONG'],
    ]);
    expect(issues[0]?.message).toBe(`"${'é'.repeat(40)}…" is 65 characters long; at most 64 are allowed`);
  });

  it('counts the salutation in characters too', () => {
    expect(create({ ...minimal, 'user[salutation]': '👩‍🔬'.repeat(6) + 'xx' })).toEqual([]);
    expect(codes(create({ ...minimal, 'user[salutation]': '😀'.repeat(21) }))).toEqual([
      ['user[salutation]', 'TOO_LONG'],
    ]);
  });

  it.each(['member', 'moderator', 'speaker', 'exhibitor', 'press', 'rejected'])(
    'accepts membership %s',
    (m) => {
      expect(create({ ...minimal, 'user[membership]': m })).toEqual([]);
    },
  );

  it('refuses an unknown membership, naming the allowed ones', () => {
    expect(create({ ...minimal, 'user[membership]': 'Speaker' })).toEqual([
      {
        param: 'user[membership]',
        code: 'INVALID_VALUE',
        message: '"Speaker" is not one of: member, moderator, speaker, exhibitor, press, rejected',
      },
    ]);
  });

  it('checks the e-mail and its confirmation', () => {
    expect(create({ ...minimal, [EMAIL]: 'bob@' })).toEqual([
      { param: EMAIL, code: 'INVALID_EMAIL', message: '"bob@" is not an e-mail address' },
    ]);
    const confirmation = 'user[svc_auth_attributes][email_confirmation]';
    expect(create({ ...minimal, [confirmation]: 'ada@example.org' })).toEqual([
      {
        param: confirmation,
        code: 'CONFIRMATION_MISMATCH',
        message: `"ada@example.org" does not match ${EMAIL} ("ada@example.com")`,
      },
    ]);
    expect(codes(create({ ...minimal, [confirmation]: '' }))).toEqual([
      [confirmation, 'CONFIRMATION_MISMATCH'],
    ]);
  });

  it('requires a company name with a position', () => {
    const position = { ...minimal, 'user[employee_attributes][position]': 'CTO' };
    expect(create(position)).toEqual([
      {
        param: 'user[employee_attributes][company_attributes][name]',
        code: 'REQUIRED',
        message:
          'the company name is required because user[employee_attributes][position] is given, but it is missing',
      },
    ]);
    expect(create({ ...minimal, 'user[employee_attributes][company_attributes][name]': 'Acme' })).toEqual([]);
  });

  it('checks every address: city and country required, ISO code, state for US and CA', () => {
    const issues = create({
      ...minimal,
      [`${ADDR}[0][street]`]: '1 Main St',
      [`${ADDR}[1][city]`]: 'Toronto',
      [`${ADDR}[1][country_code]`]: 'CA',
      [`${ADDR}[2][city]`]: 'Paris',
      [`${ADDR}[2][country_code]`]: 'fr',
      [`${ADDR}[3][city]`]: 'London',
      [`${ADDR}[3][country_code]`]: 'UK',
      [`${ADDR}[4][city]`]: 'Ottawa',
      [`${ADDR}[4][state]`]: 'ON',
      [`${ADDR}[4][country_code]`]: 'CA',
      [`${ADDR}[x][city]`]: 'Nowhere',
    });
    expect(issues).toEqual([
      expect.objectContaining({ param: `${ADDR}[x][city]`, code: 'INVALID_INDEX' }),
      {
        param: `${ADDR}[0][city]`,
        code: 'REQUIRED',
        message: 'the city of an address is required, but it is missing',
      },
      expect.objectContaining({ param: `${ADDR}[0][country_code]`, code: 'REQUIRED' }),
      {
        param: `${ADDR}[1][state]`,
        code: 'REQUIRED',
        message: 'the state is required because the address is in CA, but it is missing',
      },
      {
        param: `${ADDR}[2][country_code]`,
        code: 'INVALID_COUNTRY_CODE',
        message: '"fr" is not an ISO 3166-1 alpha-2 country code; write it in upper case: "FR"',
      },
      {
        param: `${ADDR}[3][country_code]`,
        code: 'INVALID_COUNTRY_CODE',
        message: '"UK" is not an ISO 3166-1 alpha-2 country code',
      },
    ]);
  });

  it('checks phone indexes, preferences, custom data, bio, links and remove_article', () => {
    const issues = create({
      ...minimal,
      'user[item_attributes][phones_attributes][first][work_number]': '1',
      [`${PREFS}[0][value]`]: 'true',
      [`${PREFS}[1][key]`]: 'newsletter',
      [CUSTOM]: '{"a":1',
      [BIO]: '<p>Hello<br></p>',
      'user[item_attributes][icon_uri]': 'ftp://example.com/a.png',
      'user[account_attributes][web_links][twitter]': '@ada',
      'user[item_attributes][remove_article]': 'yes',
    });
    expect(codes(issues)).toEqual([
      ['user[item_attributes][icon_uri]', 'INVALID_URL'],
      [BIO, 'INVALID_XHTML'],
      ['user[item_attributes][remove_article]', 'INVALID_VALUE'],
      ['user[item_attributes][phones_attributes][first][work_number]', 'INVALID_INDEX'],
      [`${PREFS}[0][key]`, 'REQUIRED'],
      [`${PREFS}[0][value]`, 'INVALID_VALUE'],
      [`${PREFS}[1][value]`, 'REQUIRED'],
      [CUSTOM, 'INVALID_JSON_OBJECT'],
      ['user[account_attributes][web_links][twitter]', 'INVALID_URL'],
    ]);
    expect(issues[1]?.message).toBe(
      '"<p>Hello<br></p>" is not well-formed XHTML: <br> at line 1, column 9 is closed by </p> (line 1, column 13)',
    );
  });

  it.each([
    ['[1,2]', 'an array'],
    ['"text"', 'a string'],
    ['null', 'null'],
    ['42', 'a number'],
    ['not json', 'not valid JSON'],
  ])('refuses custom_data %s as %s', (value, kind) => {
    const [issue] = create({ ...minimal, [CUSTOM]: value });
    expect(issue?.code).toBe('INVALID_JSON_OBJECT');
    expect(issue?.message).toContain(kind);
  });

  it('limits client_id to 64 characters', () => {
    expect(create({ ...minimal, client_id: 'c'.repeat(64) })).toEqual([]);
    expect(codes(create({ ...minimal, client_id: 'c'.repeat(65) }))).toEqual([['client_id', 'TOO_LONG']]);
  });
});

describe('user.update', () => {
  it('checks only what is sent', () => {
    expect(update({})).toEqual([]);
    expect(update({ 'user[salutation]': 'Dr' })).toEqual([]);
    expect(codes(update({ 'user[first_name]': '' }))).toEqual([['user[first_name]', 'REQUIRED']]);
    expect(codes(update({ [EMAIL]: 'nope' }))).toEqual([[EMAIL, 'INVALID_EMAIL']]);
  });

  it('refuses a password without repeating it', () => {
    const issues = update({ ...minimal, 'user[svc_auth_attributes][password]': 'hunter2-secret' });
    expect(issues).toEqual([
      {
        param: 'user[svc_auth_attributes][password]',
        code: 'PASSWORD_NOT_ALLOWED',
        message: 'a password must not be sent in an update: it would change the stored password',
      },
    ]);
    expect(JSON.stringify(issues)).not.toContain('hunter2');
  });

  it('lets a stored company stand behind a position, but not a company sent blank', () => {
    const position = { 'user[employee_attributes][position]': 'CTO' };
    expect(update(position)).toEqual([]);
    expect(
      codes(update({ ...position, 'user[employee_attributes][company_attributes][name]': ' ' })),
    ).toEqual([['user[employee_attributes][company_attributes][name]', 'REQUIRED']]);
  });

  it('checks an address sent in an update as a whole', () => {
    expect(codes(update({ [`${ADDR}[0][city]`]: 'Austin' }))).toEqual([
      [`${ADDR}[0][country_code]`, 'REQUIRED'],
    ]);
  });
});

describe('one-line texts of a user', () => {
  const POSITION = 'user[employee_attributes][position]';
  const COMPANY = 'user[employee_attributes][company_attributes][name]';

  it('refuses a control character, naming it and where it is, the value quoted safely', () => {
    expect(create({ ...minimal, 'user[first_name]': 'Ada\u001b[2J' })).toEqual([
      {
        param: 'user[first_name]',
        code: 'CONTROL_CHARACTER',
        message:
          '"Ada\\u001b[2J" holds a control character (U+001B) at character 4: remove it from the source',
      },
    ]);
    expect(
      codes(create({ ...minimal, 'user[last_name]': 'Love\nlace', [COMPANY]: 'Engines\u0085' })),
    ).toEqual([
      ['user[last_name]', 'CONTROL_CHARACTER'],
      [COMPANY, 'CONTROL_CHARACTER'],
    ]);
  });

  it('refuses a direction-changing character without quoting it back', () => {
    const [issue] = create({ ...minimal, [POSITION]: 'Ann\u202Enimda', [COMPANY]: 'Engines' });
    expect(issue).toEqual({
      param: POSITION,
      code: 'CONTROL_CHARACTER',
      message:
        'the value holds a direction-changing character (U+202E) at character 4: remove it from the source',
    });
  });

  it('lets names in every script, accents and emoji through', () => {
    expect(
      create({ ...minimal, 'user[first_name]': 'Zoë 😀', 'user[last_name]': 'محمد 山田 Ñúñez' }),
    ).toEqual([]);
  });
});
