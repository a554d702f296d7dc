import { describe, expect, it } from 'vitest';

import {
  charLength,
  containsHtml,
  firstHtmlTag,
  isBlank,
  isNonNegativeIntegerText,
  isPositiveIntegerText,
  quote,
} from './text-rules.js';

describe('text rules', () => {
  it('counts code points, not bytes or UTF-16 units', () => {
    expect(charLength('Zoë')).toBe(3);
    expect(charLength('😀😀')).toBe(2);
    expect(charLength('e\u0301')).toBe(2);
    expect(charLength('漢字')).toBe(2);
    expect(charLength('\uD800x')).toBe(2);
    expect(charLength('')).toBe(0);
  });

  it('treats empty and whitespace-only values as blank', () => {
    expect(isBlank(undefined)).toBe(true);
    expect(isBlank('')).toBe(true);
    expect(isBlank(' \t\n')).toBe(true);
    expect(isBlank(' x ')).toBe(false);
  });

  it.each([
    ['1', true, true],
    ['0', false, true],
    ['42', true, true],
    ['9007199254740991', true, true],
    ['9007199254740992', false, false],
    ['012', false, false],
    ['+1', false, false],
    ['-1', false, false],
    ['1.0', false, false],
    ['1e3', false, false],
    [' 1', false, false],
    ['', false, false],
  ])('integer text %j: positive %s, non-negative %s', (text, positive, nonNegative) => {
    expect(isPositiveIntegerText(text)).toBe(positive);
    expect(isNonNegativeIntegerText(text)).toBe(nonNegative);
  });

  it.each(['<b>x</b>', 'a<br/>b', '</p>', '<a href="x">', '<!-- c -->', '<!DOCTYPE html>', '<![CDATA[x]]>'])(
    'finds HTML in %j',
    (text) => {
      expect(containsHtml(text)).toBe(true);
    },
  );

  it.each(['a < b', 'I <3 this', '2 > 1', 'x<>y', 'plain'])('finds no HTML in %j', (text) => {
    expect(containsHtml(text)).toBe(false);
  });

  it('names the first tag', () => {
    expect(firstHtmlTag('see <em>this</em>')).toBe('<em>');
  });

  it('quotes values JSON-escaped and cut to 40 characters', () => {
    expect(quote('bob@')).toBe('"bob@"');
    expect(quote('a\nb"c')).toBe('"a\\nb\\"c"');
    expect(quote('x'.repeat(41))).toBe(`"${'x'.repeat(40)}…"`);
    expect(quote('😀'.repeat(40))).toBe(`"${'😀'.repeat(40)}"`);
  });
});

describe('quote on huge values', () => {
  it('stays short and fast for a 10 MB value', () => {
    const huge = 'y'.repeat(10 * 1024 * 1024);
    expect(quote(huge)).toBe(`"${'y'.repeat(40)}…"`);
    expect(charLength(huge)).toBe(huge.length);
  });
});
