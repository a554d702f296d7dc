import { describe, expect, it } from 'vitest';
import type { Intent } from '../../model/intent.js';
import { SourceIndex } from './source-index.js';

function user(key: string, params: Record<string, string>): Intent {
  return { kind: 'user', key, op: 'upsert', params, origin: { source: 'users.csv', row: 1 }, dependsOn: [] };
}

describe('SourceIndex', () => {
  it('gives back the compared fields of a packed user, values normalised, in order', () => {
    const index = new SourceIndex();
    index.add(
      user('a', {
        'user[email]': 'a@example.org',
        'user[first_name]': ' Ada ',
        'user[last_name]': '',
        'user[item_attributes][article_attributes][content]': '<p>Hello&amp; <b>world</b></p>',
      }),
    );
    index.add(user('b', {}));
    expect(index.users.get('a')?.fields).toEqual([
      { param: 'user[first_name]', value: 'Ada' },
      { param: 'user[last_name]', value: '' },
      { param: 'user[item_attributes][article_attributes][content]', value: 'Hello& world' },
    ]);
    expect(index.users.get('b')?.fields).toEqual([]);
  });

  it('keeps a value holding the packing separator as it is', () => {
    const index = new SourceIndex();
    index.add(user('a', { 'user[first_name]': 'A\u0000B', 'user[last_name]': 'C' }));
    expect(index.users.get('a')?.fields).toEqual([
      { param: 'user[first_name]', value: 'A\u0000B' },
      { param: 'user[last_name]', value: 'C' },
    ]);
  });
});
