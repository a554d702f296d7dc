import { describe, expect, it } from 'vitest';
import { differences, sourceFields } from './audited-fields.js';
import { normalised, xhtmlText } from './compare-values.js';

describe('normalised values', () => {
  it('compares instants, not their spelling: responses are UTC (§2.4)', () => {
    expect(normalised('2027-03-01T09:00:00+01:00', 'instant')).toBe(
      normalised('2027-03-01T08:00:00.000000Z', 'instant'),
    );
  });

  it('reads XHTML by its text', () => {
    expect(xhtmlText('<p>How &amp; <b>why</b>&#33;</p>\n')).toBe('How & why !');
    expect(normalised('<p>Caf&eacute;<br/>Cr&#xE8;me</p>', 'xhtml')).toBe(
      normalised('<p>Café<br />Crème</p>', 'xhtml'),
    );
  });

  it('takes tags as a set, and absent as empty', () => {
    expect(normalised('b, A,a', 'tags')).toBe(normalised([{ tag_name: 'a' }, { tag_name: 'B' }], 'tags'));
    expect(normalised(null, 'text')).toBe(normalised('', 'text'));
    expect(normalised([], 'tags')).toBe('');
    expect(normalised('{"b":1,"a":2}', 'json')).toBe(normalised({ a: 2, b: 1 }, 'json'));
  });
});

describe('differences', () => {
  const params = {
    'user[first_name]': 'Ada',
    'user[employee_attributes][position]': 'Engineer',
    'user[svc_auth_attributes][email]': 'ada@example.org',
    'user[svc_auth_attributes][password]': 'secret',
    'user[account_attributes][web_links][blog]': 'https://ada.example/',
  };

  it('keeps only the params the platform shows back: no e-mail, no password', () => {
    expect(sourceFields('user', params).map((field) => field.param)).toEqual([
      'user[first_name]',
      'user[employee_attributes][position]',
      'user[account_attributes][web_links][blog]',
    ]);
  });

  it('names the params whose platform value differs, and skips fields the answer does not show', () => {
    const fields = sourceFields('user', params);
    expect(differences('user', fields, { id: 1, first_name: 'Ada', web_links: {} })).toEqual([
      { param: 'user[account_attributes][web_links][blog]', source: 'https://ada.example/', platform: '' },
    ]);
    expect(
      differences('user', fields, {
        id: 1,
        first_name: 'Ada ',
        employee: { position: 'Countess' },
        web_links: { blog: 'https://ada.example/' },
      }).map((difference) => difference.param),
    ).toEqual(['user[employee_attributes][position]']);
  });

  it('reads an event as §2.4 shows it', () => {
    const fields = sourceFields('event', {
      'event[item_attributes][display_value]': 'Opening',
      'event[start]': '2027-03-01T09:00:00+01:00',
      'event[track_name]': 'Main',
      'location[item_attributes][display_value]': 'Hall A',
    });
    const event = {
      id: 9,
      name: 'Opening',
      start: '2027-03-01T08:00:00.000000Z',
      track: { id: 1, name: 'Main' },
      location: null,
    };
    expect(differences('event', fields, event)).toEqual([
      { param: 'location[item_attributes][display_value]', source: 'Hall A', platform: '' },
    ]);
  });
});
