import { describe, expect, it } from 'vitest';
import { DownCountStreak } from './down-count-streak.js';

describe('DownCountStreak', () => {
  it('stops once the platform-wide failures since the last success reach the limit', () => {
    const streak = new DownCountStreak(10);
    expect(streak.observe(100, undefined, false)).toBeUndefined();
    // The platform goes down after 100 successes: 4, then 6 more in a row.
    expect(streak.observe(104, 4, false)).toBeUndefined();
    expect(streak.observe(110, 10, false)).toEqual({ count: 10, wholePhase: false });
  });

  it('a look with any other sent result ends the streak; a look with nothing new keeps it', () => {
    const streak = new DownCountStreak(10);
    expect(streak.observe(8, 8, false)).toBeUndefined();
    expect(streak.observe(8, undefined, false)).toBeUndefined();
    // 5 new results, 4 of them platform-wide failures: one reached the platform.
    expect(streak.observe(13, 12, false)).toBeUndefined();
    expect(streak.observe(22, 21, false)).toBeUndefined();
    expect(streak.observe(23, 22, false)).toEqual({ count: 10, wholePhase: false });
  });

  it('failures counted after the sent results they belong with extend the streak at the next look', () => {
    const streak = new DownCountStreak(10);
    // The failure count, read a moment later, already has 3 more than `sent` holds.
    expect(streak.observe(4, 7, false)).toBeUndefined();
    expect(streak.observe(7, 7, false)).toBeUndefined();
    expect(streak.observe(10, 10, false)).toEqual({ count: 10, wholePhase: false });
  });

  it('a finished phase says when every intent it sent failed platform-wide, fewer than the limit', () => {
    expect(new DownCountStreak(10).observe(3, 3, true)).toEqual({ count: 3, wholePhase: true });
    expect(new DownCountStreak(10).observe(3, 2, true)).toBeUndefined();
    expect(new DownCountStreak(10).observe(0, undefined, true)).toBeUndefined();
    const late = new DownCountStreak(10);
    late.observe(5, undefined, false);
    expect(late.observe(8, 3, true)).toBeUndefined();
  });
});
