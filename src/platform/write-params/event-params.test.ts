import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { FlatParams } from '../../model/params.js';
import { validateWriteParams } from './validate-write-params.js';

const NAME = 'event[item_attributes][display_value]';
const DESCRIPTION = 'event[item_attributes][article][content]';

const minimal: FlatParams = {
  [NAME]: 'Opening keynote',
  [DESCRIPTION]: '<p>Welcome&#160;all.</p>',
  'event[start]': '2026-05-04T09:00:00+02:00',
  'event[finish]': '2026-05-04T10:00:00+02:00',
};

const create = (params: FlatParams, strict = false) =>
  validateWriteParams('event.create', params, { vendor: 'svc', strict });
const update = (params: FlatParams) => validateWriteParams('event.update', params, { vendor: 'svc' });
const codes = (issues: { param: string; code: string }[]) => issues.map((i) => [i.param, i.code]);

describe('event.create', () => {
  it('accepts a minimal and a full event', () => {
    expect(create(minimal)).toEqual([]);
    const full = {
      ...minimal,
      client_id: 'sess-42',
      'event[track_name]': 'Main',
      'event[track_id]': '',
      'event[max_attendees]': '0',
      'event[item_attributes][tags_list]': 'ai, ml',
      'event[exhibitor_client_id]': 'exh-1',
      'event[speakers_attributes][0][user_client_id]': 'u-1',
      'event[speakers_attributes][0][type_name]': 'chair',
      'event[speakers_attributes][1][user_client_id]': 'u-2',
      'location[item_attributes][display_value]': 'Hall A',
      'location_address[street]': '1 Main St',
      'location_address[city]': 'Springfield',
      'location_address[state]': 'IL',
      'location_address[country_code]': 'US',
    };
    expect(create(full, true)).toEqual([]);
  });

  it('requires name, description, start and finish', () => {
    expect(codes(create({}))).toEqual([
      [NAME, 'REQUIRED'],
      [DESCRIPTION, 'REQUIRED'],
      ['event[start]', 'REQUIRED'],
      ['event[finish]', 'REQUIRED'],
    ]);
  });

  it('requires a well-formed XHTML description', () => {
    const [issue] = create({ ...minimal, [DESCRIPTION]: 'Fish & chips' });
    expect(issue).toEqual({
      param: DESCRIPTION,
      code: 'INVALID_XHTML',
      message:
        '"Fish & chips" is not well-formed XHTML: a bare "&" must be written "&amp;" (line 1, column 6)',
    });
  });

  it('requires XML dateTimes', () => {
    const issues = create({ ...minimal, 'event[start]': '2026-05-04 09:00', 'event[finish]': '04/05/2026' });
    expect(codes(issues)).toEqual([
      ['event[start]', 'INVALID_DATETIME'],
      ['event[finish]', 'INVALID_DATETIME'],
    ]);
    expect(issues[0]?.message).toBe(
      '"2026-05-04 09:00" is not an XML dateTime; expected YYYY-MM-DDThh:mm:ss with an offset, e.g. 2026-05-04T09:30:00+02:00',
    );
  });

  it('refuses a finish before the start, comparing instants across offsets', () => {
    expect(create({ ...minimal, 'event[finish]': '2026-05-04T06:30:00Z' })).toEqual([
      {
        param: 'event[finish]',
        code: 'FINISH_BEFORE_START',
        message: '"2026-05-04T06:30:00Z" is before event[start] ("2026-05-04T09:00:00+02:00")',
      },
    ]);
    // 07:30Z is 09:30+02:00: after the start although its clock reads earlier.
    expect(create({ ...minimal, 'event[finish]': '2026-05-04T07:30:00Z' })).toEqual([]);
    expect(create({ ...minimal, 'event[finish]': minimal['event[start]']! })).toEqual([]);
    expect(
      create({ ...minimal, 'event[start]': '2026-05-04T09:00:00', 'event[finish]': '2026-05-04T10:00:00' }),
    ).toEqual([]);
  });

  it('refuses track id and track name together, and a bad track id', () => {
    expect(create({ ...minimal, 'event[track_id]': '7', 'event[track_name]': 'Main' })).toEqual([
      {
        param: 'event[track_name]',
        code: 'MUTUALLY_EXCLUSIVE',
        message: 'give event[track_id] or event[track_name], not both',
      },
    ]);
    expect(codes(create({ ...minimal, 'event[track_id]': 'main' }))).toEqual([
      ['event[track_id]', 'INVALID_INTEGER'],
    ]);
  });

  it.each([
    ['0', true],
    ['250', true],
    ['-1', false],
    ['12.5', false],
    ['many', false],
  ])('max_attendees %s valid: %s', (value, valid) => {
    expect(create({ ...minimal, 'event[max_attendees]': value })).toHaveLength(valid ? 0 : 1);
  });

  it('checks speakers: client_id required per entry, type in the enum, indexes', () => {
    const issues = create({
      ...minimal,
      'event[speakers_attributes][0][type_name]': 'keynote',
      'event[speakers_attributes][1][user_client_id]': 'u'.repeat(65),
      'event[speakers_attributes][-1][user_client_id]': 'u-9',
    });
    expect(codes(issues)).toEqual([
      ['event[speakers_attributes][-1][user_client_id]', 'INVALID_INDEX'],
      ['event[speakers_attributes][0][user_client_id]', 'REQUIRED'],
      ['event[speakers_attributes][0][type_name]', 'INVALID_VALUE'],
      ['event[speakers_attributes][1][user_client_id]', 'TOO_LONG'],
    ]);
  });

  it('refuses a partial location address and one without a location name', () => {
    const issues = create({
      ...minimal,
      'location_address[city]': 'Berlin',
      'location_address[country_code]': 'de',
    });
    expect(codes(issues)).toEqual([
      ['location_address[street]', 'PARTIAL_ADDRESS'],
      ['location_address[state]', 'PARTIAL_ADDRESS'],
      ['location_address[country_code]', 'INVALID_COUNTRY_CODE'],
      ['location[item_attributes][display_value]', 'REQUIRED'],
    ]);
    expect(issues[0]?.message).toBe(
      'the street is required because location_address[city], location_address[country_code] are given (partial addresses are not allowed), but it is missing',
    );
    expect(create({ ...minimal, 'location[item_attributes][display_value]': 'Room 1' })).toEqual([]);
  });
});

describe('event.update', () => {
  it('checks only what is sent', () => {
    expect(update({})).toEqual([]);
    expect(update({ 'event[start]': '2026-05-04T09:00:00Z' })).toEqual([]);
    expect(codes(update({ [NAME]: '' }))).toEqual([[NAME, 'REQUIRED']]);
    expect(
      codes(update({ 'event[start]': '2026-05-04T09:00:00Z', 'event[finish]': '2026-05-04T08:00:00Z' })),
    ).toEqual([['event[finish]', 'FINISH_BEFORE_START']]);
    // A blank track id disconnects the track: it is not an error, even with a track name.
    expect(update({ 'event[track_id]': '', 'event[track_name]': 'New' })).toEqual([]);
  });
});

describe('property: start and finish', () => {
  const offset = fc.integer({ min: -14 * 4, max: 14 * 4 }).map((quarters) => quarters * 15);
  const instant = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2090, 0, 1) });
  const format = (epochMs: number, offsetMinutes: number): string => {
    const local = new Date(epochMs + offsetMinutes * 60_000).toISOString().slice(0, 23);
    const abs = Math.abs(offsetMinutes);
    const hh = String(Math.floor(abs / 60)).padStart(2, '0');
    const mm = String(abs % 60).padStart(2, '0');
    return `${local}${offsetMinutes < 0 ? '-' : '+'}${hh}:${mm}`;
  };

  it('reports FINISH_BEFORE_START exactly when the finish instant is earlier, whatever the offsets', () => {
    fc.assert(
      fc.property(instant, instant, offset, offset, (start, finish, startOffset, finishOffset) => {
        const issues = create({
          ...minimal,
          'event[start]': format(start, startOffset),
          'event[finish]': format(finish, finishOffset),
        });
        expect(issues.map((i) => i.code)).toEqual(finish < start ? ['FINISH_BEFORE_START'] : []);
      }),
    );
  });
});
