import { describe, expect, it } from 'vitest';
import { loadMapping } from '../load-mapping.js';
import { cellText, missingColumnMessage } from './column-binder.js';

describe('cellText', () => {
  it('joins an array of a SQL source with ",", as a list reaching a param is joined', () => {
    expect(cellText(['x', 'y'])).toBe('x,y');
    expect(cellText([1, null, '', 'z'])).toBe('1,z');
    expect(cellText([new Date('2026-03-28T08:00:00Z')])).toBe('2026-03-28T08:00:00.000Z');
    expect(cellText([])).toBe('');
  });

  it('keeps objects (json columns), and arrays holding objects, as JSON', () => {
    expect(cellText({ shirt: 'M', vegan: true })).toBe('{"shirt":"M","vegan":true}');
    expect(cellText([{ a: 1 }, 'b'])).toBe('[{"a":1},"b"]');
  });

  it('gives the users mapping tags x,y for a text[] value, and custom_data as the object', async () => {
    const mapper = (await loadMapping('users', { vendor: 'svc' })).bind([
      'client_id',
      'email',
      'first_name',
      'last_name',
      'tags',
      'custom_data',
    ]);
    const mapped = mapper(
      {
        client_id: 'u1',
        email: 'a@b.org',
        first_name: 'A',
        last_name: 'B',
        tags: ['x', 'y'],
        custom_data: { shirt: 'M' },
      },
      { source: 'query "people"', row: 1 },
    );
    expect(mapped.type === 'drafts' ? mapped.drafts[0]?.params : undefined).toMatchObject({
      'user[item_attributes][tags_list]': 'x,y',
      'user[account_attributes][profiles_attributes][0][custom_data]': '{"shirt":"M"}',
    });
  });
});

describe('missingColumnMessage', () => {
  it('names a column to rename only when its name tells it, never another name column', () => {
    expect(missingColumnMessage(['last_name', 'Last Name'], ['client_id', 'first_name', 'email'])).toContain(
      'Rename the column in the source to "last_name"',
    );
    expect(missingColumnMessage(['email', 'Ticket Email'], ['first_name', 'Attendee E-mail'])).toContain(
      'Rename "Attendee E-mail" in the source to "email"',
    );
  });
});
