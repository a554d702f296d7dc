import { describe, expect, it } from 'vitest';
import type { IntentDraft } from './loaded-mapping.js';
import { checkDraft, columnOf } from './validate-draft.js';

const origin = { source: 'speakers.csv', row: 3, line: 4 };

describe('columnOf', () => {
  const speaker: IntentDraft = {
    kind: 'speaker',
    op: 'upsert',
    params: { client_id: 'e2', 'speaker[type_name]': 'speaker' },
    columns: {
      client_id: 'event_client_id',
      'speaker[user_client_id]': 'user_client_id',
      'speaker[type_name]': 'type',
    },
  };

  it('names the column of a param the message names as a whole, not of one inside another name', () => {
    // `client_id` is inside `speaker[user_client_id]`: it must not win.
    expect(
      columnOf(speaker, 'speaker[user_id]', 'one of speaker[user_id], speaker[user_client_id] is required'),
    ).toBe('user_client_id');
    const checked = checkDraft(speaker, origin, 'svc');
    expect(checked.ok ? [] : checked.problems.map((p) => p.field)).toEqual(['user_client_id']);
  });

  it('finds an indexed param under its [n] name, and leaves quoted values alone', () => {
    const draft: IntentDraft = { ...speaker, columns: { 'event_client_ids[n]': 'event' } };
    expect(columnOf(draft, 'other', 'event_client_ids[2] is too long')).toBe('event');
    expect(columnOf(speaker, 'other', '"client_id" is not a word here')).toBe('other');
  });
});

describe('checkDraft: a draft without its key', () => {
  it('names the mapped column that is empty on this row', () => {
    const draft: IntentDraft = {
      kind: 'user',
      op: 'upsert',
      params: {
        'user[svc_auth_attributes][email]': 'a@b.org',
        'user[first_name]': 'A',
        'user[last_name]': 'B',
      },
      columns: { client_id: 'eb-{Attendee #}', 'user[svc_auth_attributes][email]': 'Email' },
    };
    expect(checkDraft(draft, origin, 'svc')).toEqual({
      ok: false,
      problems: [
        {
          field: 'eb-{Attendee #}',
          message:
            'the value is empty on this row, but a user needs its client_id to be tracked between runs: fill it in the source',
          code: 'MAPPING_NO_KEY',
        },
      ],
    });
  });

  it("names the column of a mapping's key: when it is empty", () => {
    const draft: IntentDraft = {
      kind: 'check_in',
      op: 'upsert',
      params: { 'check_in[mode]': '1', 'check_in[center]': '1.0,2.0' },
      keyLabel: 'check_in_id',
    };
    const checked = checkDraft(draft, origin, 'svc');
    expect(checked.ok ? [] : checked.problems).toContainEqual({
      field: 'check_in_id',
      message:
        'the value is empty on this row, but a check_in needs its key to be tracked between runs: fill it in the source',
      code: 'MAPPING_NO_KEY',
    });
  });

  it('asks to map the key when the mapping does not read it', () => {
    const draft: IntentDraft = { kind: 'event', op: 'upsert', params: {}, columns: {} };
    const checked = checkDraft(draft, origin, 'svc');
    expect(checked.ok ? [] : checked.problems).toContainEqual({
      field: 'client_id',
      message: 'an event needs client_id to be tracked between runs: map it',
      code: 'MAPPING_NO_KEY',
    });
  });
});
