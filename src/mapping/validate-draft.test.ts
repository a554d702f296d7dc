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
