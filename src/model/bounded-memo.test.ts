import { describe, expect, it } from 'vitest';
import { boundedMemo } from './bounded-memo.js';

describe('boundedMemo', () => {
  it('computes each text once, undefined answers included', () => {
    const asked: string[] = [];
    const memo = boundedMemo((text) => {
      asked.push(text);
      return text === 'none' ? undefined : text.length;
    }, 10);
    expect([memo('abc'), memo('abc'), memo('none'), memo('none')]).toEqual([3, 3, undefined, undefined]);
    expect(asked).toEqual(['abc', 'none']);
  });

  it('is emptied when it holds max texts, and still answers', () => {
    let computed = 0;
    const memo = boundedMemo((text) => {
      computed += 1;
      return text.toUpperCase();
    }, 2);
    expect([memo('a'), memo('b'), memo('c')]).toEqual(['A', 'B', 'C']);
    // 'c' emptied it: 'a' is computed again, 'c' is not.
    expect([memo('c'), memo('a')]).toEqual(['C', 'A']);
    expect(computed).toBe(4);
  });
});
