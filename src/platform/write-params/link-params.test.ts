import { describe, expect, it } from 'vitest';

import type { FlatParams } from '../../model/params.js';
import type { WriteOperation } from './validate-write-params.js';
import { validateWriteParams } from './validate-write-params.js';

const run = (operation: WriteOperation, params: FlatParams, pathId?: string) =>
  validateWriteParams(operation, params, {
    vendor: 'svc',
    strict: true,
    ...(pathId === undefined ? {} : { pathId }),
  });
const codes = (issues: { param: string; code: string }[]) => issues.map((i) => [i.param, i.code]);

describe.each(['speaker.add', 'speaker.remove'] as const)('%s', (operation) => {
  it('accepts the event by client_id or path id and the user one way', () => {
    expect(run(operation, { client_id: 'sess-1', 'speaker[user_client_id]': 'u-1' })).toEqual([]);
    expect(run(operation, { 'speaker[user_id]': '12' }, '34')).toEqual([]);
  });

  it('requires exactly one of speaker[user_id] and speaker[user_client_id]', () => {
    expect(run(operation, { client_id: 'sess-1' })).toEqual([
      {
        param: 'speaker[user_id]',
        code: 'ONE_REQUIRED',
        message: 'one of speaker[user_id], speaker[user_client_id] is required',
      },
    ]);
    expect(
      run(operation, { client_id: 'sess-1', 'speaker[user_id]': '1', 'speaker[user_client_id]': 'u-1' }),
    ).toEqual([
      {
        param: 'speaker[user_client_id]',
        code: 'MUTUALLY_EXCLUSIVE',
        message: 'give only one of speaker[user_id], speaker[user_client_id]',
      },
    ]);
  });

  it('requires the event and checks the ids', () => {
    expect(codes(run(operation, { 'speaker[user_id]': 'abc' }))).toEqual([
      ['client_id', 'REQUIRED'],
      ['speaker[user_id]', 'INVALID_INTEGER'],
    ]);
    expect(codes(run(operation, { 'speaker[user_id]': '1' }, 'x1'))).toEqual([['id', 'INVALID_INTEGER']]);
  });
});

describe('speaker types', () => {
  it.each(['speaker', 'moderator', 'author', 'presenter', 'submitter', 'chair'])('accepts %s', (type) => {
    expect(
      run('speaker.add', { client_id: 's', 'speaker[user_id]': '1', 'speaker[type_name]': type }),
    ).toEqual([]);
  });

  it('refuses others, and type_name on remove is unknown', () => {
    expect(
      codes(run('speaker.add', { client_id: 's', 'speaker[user_id]': '1', 'speaker[type_name]': 'host' })),
    ).toEqual([['speaker[type_name]', 'INVALID_VALUE']]);
    expect(
      codes(
        run('speaker.remove', { client_id: 's', 'speaker[user_id]': '1', 'speaker[type_name]': 'chair' }),
      ),
    ).toEqual([['speaker[type_name]', 'UNKNOWN_PARAM']]);
  });
});

describe.each(['rsvp.add', 'rsvp.remove'] as const)('%s', (operation) => {
  it.each([[{ 'user[email]': 'ada@example.com' }], [{ 'user[client_id]': 'u-1' }], [{ 'user[id]': '9' }]])(
    'identifies the user by %j',
    (user) => {
      expect(run(operation, { client_id: 'sess-1', ...user })).toEqual([]);
    },
  );

  it('requires exactly one user identifier, and the event', () => {
    expect(codes(run(operation, {}))).toEqual([
      ['client_id', 'REQUIRED'],
      ['user[email]', 'ONE_REQUIRED'],
    ]);
    expect(
      codes(
        run(operation, { client_id: 's', 'user[email]': 'a@b.co', 'user[id]': '1', 'user[client_id]': 'u' }),
      ),
    ).toEqual([
      ['user[client_id]', 'MUTUALLY_EXCLUSIVE'],
      ['user[id]', 'MUTUALLY_EXCLUSIVE'],
    ]);
  });

  it('checks the identifier it is given', () => {
    expect(codes(run(operation, { client_id: 's', 'user[email]': 'bob@' }))).toEqual([
      ['user[email]', 'INVALID_EMAIL'],
    ]);
    expect(codes(run(operation, { client_id: 's', 'user[id]': '0' }))).toEqual([
      ['user[id]', 'INVALID_INTEGER'],
    ]);
    expect(codes(run(operation, { client_id: 's', 'user[id]': '1', response: 'maybe' }))).toEqual([
      ['response', 'INVALID_VALUE'],
    ]);
  });
});

describe('schedule.replace', () => {
  it('accepts a list of events, and an empty list that clears the schedule', () => {
    const params = { 'user[client_id]': 'u-1', 'event_client_ids[0]': 's-1', 'event_client_ids[1]': 's-2' };
    expect(run('schedule.replace', params)).toEqual([]);
    expect(run('schedule.replace', { 'user[id]': '5' })).toEqual([]);
  });

  it('requires one user identifier and sound entries', () => {
    const issues = run('schedule.replace', {
      'event_client_ids[0]': '',
      'event_client_ids[one]': 's-2',
      'event_client_ids[2]': 'e'.repeat(65),
    });
    expect(codes(issues)).toEqual([
      ['user[client_id]', 'ONE_REQUIRED'],
      ['event_client_ids[one]', 'INVALID_INDEX'],
      ['event_client_ids[0]', 'REQUIRED'],
      ['event_client_ids[2]', 'TOO_LONG'],
    ]);
    expect(codes(run('schedule.replace', { 'user[client_id]': 'u', 'user[id]': '1' }))).toEqual([
      ['user[id]', 'MUTUALLY_EXCLUSIVE'],
    ]);
  });
});

describe('contacts', () => {
  it('lists with an optional client_id', () => {
    expect(run('contact.list', {})).toEqual([]);
    expect(run('contact.list', { client_id: 'u-1' })).toEqual([]);
    expect(codes(run('contact.list', { user_id: '1' }))).toEqual([['user_id', 'UNKNOWN_PARAM']]);
  });

  it.each(['contact.add', 'contact.remove'] as const)(
    '%s needs exactly one of user_id and exhibitor_id',
    (operation) => {
      expect(run(operation, { client_id: 'u-1', user_id: '2' })).toEqual([]);
      expect(run(operation, { exhibitor_id: '3' })).toEqual([]);
      expect(codes(run(operation, {}))).toEqual([['user_id', 'ONE_REQUIRED']]);
      expect(codes(run(operation, { user_id: '2', exhibitor_id: '3' }))).toEqual([
        ['exhibitor_id', 'MUTUALLY_EXCLUSIVE'],
      ]);
      expect(run(operation, { exhibitor_id: 'x' })).toEqual([
        {
          param: 'exhibitor_id',
          code: 'INVALID_INTEGER',
          message: '"x" is not an exhibitor id (a whole number from 1)',
        },
      ]);
    },
  );
});
