import { describe, expect, it } from 'vitest';

import { IndexedGroups } from './indexed-groups.js';
import { ParamChecker } from './param-checker.js';

const params = {
  'a[list][1][x]': 'one',
  'a[list][0][x]': 'zero',
  'a[list][0][y]': 'zero-y',
  'a[list][01][x]': 'bad',
  'a[links][blog]': 'https://example.com',
  'a[links]': 'flat',
  'ids[2]': 'c',
  'ids[0]': 'a',
  'ids[x]': 'bad',
  'ids[0][deep]': 'not a flat entry',
  constructor: 'a real param named constructor',
};

describe('ParamChecker', () => {
  it.each([
    ['declared groups', new IndexedGroups(['a[list]', 'a[links]', 'ids'])],
    ['the fallback scan', undefined],
  ])('reads indexed groups through %s', (_label, groups) => {
    const check = new ParamChecker(params, 'create', groups);
    expect(check.indexed('a[list]').map((e) => [e.index, [...e.fields.entries()]])).toEqual([
      [
        '0',
        [
          ['x', 'a[list][0][x]'],
          ['y', 'a[list][0][y]'],
        ],
      ],
      ['1', [['x', 'a[list][1][x]']]],
    ]);
    expect(check.keyed('a[links]')).toEqual(['a[links][blog]']);
    expect(check.indexedValues('ids')).toEqual([
      { index: '0', name: 'ids[0]', value: 'a' },
      { index: '2', name: 'ids[2]', value: 'c' },
    ]);
    expect(check.issues.map((i) => [i.param, i.code])).toEqual([
      ['a[list][01][x]', 'INVALID_INDEX'],
      ['ids[x]', 'INVALID_INDEX'],
    ]);
  });

  it('finds only own params, never inherited properties', () => {
    const check = new ParamChecker({ constructor: 'x' });
    expect(check.get('constructor')).toBe('x');
    expect(check.get('toString')).toBeUndefined();
    expect(check.has('__proto__')).toBe(false);
    expect(new ParamChecker({}).required('hasOwnProperty', 'it')).toBeUndefined();
  });
});

describe('IndexedGroups', () => {
  it('classifies a name the same way from its cache', () => {
    const groups = new IndexedGroups(['a[list]']);
    const names = ['a[list][0][x]', 'a[other][0][x]', 'a[list][1]'];
    const first = groups.sort(names);
    expect(groups.sort(names)).toEqual(first);
    expect(first.get('a[list]')).toEqual([
      { name: 'a[list][0][x]', index: '0', field: 'x' },
      { name: 'a[list][1]', index: '1', field: undefined },
    ]);
  });
});
