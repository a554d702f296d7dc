import { describe, expect, it } from 'vitest';

import type { FlatParams } from '../../model/params.js';
import { isLonLat } from './check-in-params.js';
import { validateWriteParams } from './validate-write-params.js';

const run = (params: FlatParams) =>
  validateWriteParams('check_in.create', params, { vendor: 'svc', strict: true });
const codes = (issues: { param: string; code: string }[]) => issues.map((i) => [i.param, i.code]);

describe('check_in.create', () => {
  it('accepts mode 1 to a coordinate, mode 1 to an object, and chatter', () => {
    expect(
      run({
        'check_in[mode]': '1',
        'check_in[center]': '-122.4194,37.7749',
        'check_in[display_value]': 'SF',
      }),
    ).toEqual([]);
    expect(
      run({
        'check_in[mode]': '1',
        'check_in[location_item][type]': 'exhibitor',
        'check_in[location_item][id]': '5',
        client_id: 'u-1',
      }),
    ).toEqual([]);
    expect(run({ 'check_in[mode]': '2', 'check_in[display_value]': 'Great talk! a < b' })).toEqual([]);
    expect(
      run({
        'check_in[mode]': '2',
        'check_in[display_value]': 'See you there',
        'check_in[location_item][type]': 'event',
        'check_in[location_item][id]': '8',
        post_to_twitter: '1',
      }),
    ).toEqual([]);
  });

  it('requires a mode of 1 or 2', () => {
    expect(codes(run({}))).toEqual([['check_in[mode]', 'REQUIRED']]);
    expect(codes(run({ 'check_in[mode]': '3' }))).toEqual([['check_in[mode]', 'INVALID_VALUE']]);
  });

  it('mode 1 needs a center or a location item, not both', () => {
    expect(codes(run({ 'check_in[mode]': '1' }))).toEqual([['check_in[center]', 'ONE_REQUIRED']]);
    const both = {
      'check_in[mode]': '1',
      'check_in[center]': '1,2',
      'check_in[location_item][type]': 'user',
      'check_in[location_item][id]': '3',
    };
    expect(codes(run(both))).toEqual([['check_in[center]', 'MUTUALLY_EXCLUSIVE']]);
  });

  it('rule 2: location item type and id come together, with valid values', () => {
    expect(codes(run({ 'check_in[mode]': '1', 'check_in[location_item][type]': 'feature' }))).toEqual([
      ['check_in[location_item][id]', 'REQUIRED'],
    ]);
    expect(
      codes(
        run({ 'check_in[mode]': '2', 'check_in[display_value]': 'x', 'check_in[location_item][id]': '4' }),
      ),
    ).toEqual([['check_in[location_item][type]', 'REQUIRED']]);
    expect(
      codes(
        run({
          'check_in[mode]': '1',
          'check_in[location_item][type]': 'booth',
          'check_in[location_item][id]': 'a',
        }),
      ),
    ).toEqual([
      ['check_in[location_item][id]', 'INVALID_INTEGER'],
      ['check_in[location_item][type]', 'INVALID_VALUE'],
    ]);
    expect(
      codes(
        run({
          'check_in[mode]': '2',
          'check_in[display_value]': 'x',
          'check_in[location_item][type]': 'user',
          'check_in[location_item][id]': '4',
        }),
      ),
    ).toEqual([['check_in[location_item][type]', 'INVALID_VALUE']]);
  });

  it('chatter needs text; no text may hold HTML', () => {
    expect(codes(run({ 'check_in[mode]': '2' }))).toEqual([['check_in[display_value]', 'REQUIRED']]);
    expect(
      run({ 'check_in[mode]': '2', 'check_in[display_value]': 'Hello <script>alert(1)</script>' }),
    ).toEqual([
      {
        param: 'check_in[display_value]',
        code: 'HTML_NOT_ALLOWED',
        message: '"Hello <script>alert(1)</script>" contains HTML ("<script>"); send plain text',
      },
    ]);
    expect(
      codes(
        run({ 'check_in[mode]': '1', 'check_in[center]': '0,0', 'check_in[display_value]': 'Hall<br/>A' }),
      ),
    ).toEqual([['check_in[display_value]', 'HTML_NOT_ALLOWED']]);
  });

  it('refuses a bad center and params of the other mode', () => {
    expect(codes(run({ 'check_in[mode]': '1', 'check_in[center]': '37.7,-122.4' }))).toEqual([
      ['check_in[center]', 'INVALID_COORDINATES'],
    ]);
    expect(
      codes(run({ 'check_in[mode]': '2', 'check_in[display_value]': 'x', post_to_facebook: 'true' })),
    ).toEqual([['post_to_facebook', 'INVALID_VALUE']]);
  });
});

describe('isLonLat', () => {
  it.each(['0,0', '180,90', '-180,-90', '13.4050, 52.5200', '-122.4194,37.7749'])('accepts %s', (v) => {
    expect(isLonLat(v)).toBe(true);
  });
  it.each(['', '1', '1,2,3', '181,0', '0,91', 'a,b', '1;2', '1e1,2', '0x1,2', '12.,3'])('refuses %j', (v) => {
    expect(isLonLat(v)).toBe(false);
  });
});
