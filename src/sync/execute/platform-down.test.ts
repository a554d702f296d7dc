import { describe, expect, it } from 'vitest';
import { PLATFORM_ERROR_CODES } from '../../platform/platform-error.js';
import type { ProcessOutcome } from '../processors/process-outcome.js';
import { PLATFORM_DOWN_CODES, PlatformDownStreak } from './platform-down.js';

const unreachable: ProcessOutcome = {
  action: 'failed',
  errorCode: PLATFORM_ERROR_CODES.unreachable,
  message: 'ECONNREFUSED',
  attempts: 1,
};
const refused: ProcessOutcome = {
  action: 'failed',
  errorCode: PLATFORM_ERROR_CODES.unauthorized,
  message: 'invalid signature',
  attempts: 1,
};
const overloaded: ProcessOutcome = {
  action: 'failed',
  errorCode: PLATFORM_ERROR_CODES.server,
  message: 'POST /user answered 503',
  attempts: 5,
};
const invalidRow: ProcessOutcome = { action: 'failed', errorCode: PLATFORM_ERROR_CODES.invalid, attempts: 1 };
const skipped: ProcessOutcome = { action: 'skipped', errorCode: 'EVSYNC_PARENT_MISSING', attempts: 0 };

describe('platform-down streak', () => {
  it('stops at the limit of one kind of failure in a row, saying what to check', () => {
    const streak = new PlatformDownStreak(3);
    expect(streak.observe(refused)).toBeUndefined();
    expect(streak.observe(refused)).toBeUndefined();
    expect(streak.observe(refused)).toMatch(
      /refused the signature of 3 intents in a row \(invalid signature\)\. Check EVSYNC_KEY_ID/,
    );
    const down = new PlatformDownStreak(2);
    down.observe(overloaded);
    expect(down.observe(overloaded)).toMatch(
      /^the platform failed \(5xx\) for 2 intents in a row, after its retries \(POST \/user answered 503\)\. It may be down or overloaded/,
    );
    expect(new PlatformDownStreak(1).observe(unreachable)).toBe(
      'the platform could not be reached for 1 intents in a row (ECONNREFUSED)',
    );
  });

  it('a row of its own failing or succeeding ends the streak; a skipped dependent does not', () => {
    const streak = new PlatformDownStreak(3);
    streak.observe(unreachable);
    streak.observe(unreachable);
    streak.observe(invalidRow);
    expect(streak.observe(unreachable)).toBeUndefined();
    streak.observe(unreachable);
    streak.observe(skipped);
    expect(streak.observe(unreachable)).toMatch(/could not be reached for 3/);
    // Another kind of platform-wide failure starts its own count.
    const mixed = new PlatformDownStreak(2);
    mixed.observe(unreachable);
    expect(mixed.observe(refused)).toBeUndefined();
    expect(mixed.observe(refused)).toMatch(/refused the signature of 2/);
  });

  it('a run too small for the limit stops when every intent it sent failed platform-wide', () => {
    const small = new PlatformDownStreak(10);
    expect(small.everySentFailed()).toBeUndefined();
    small.observe(skipped);
    expect(small.everySentFailed()).toBeUndefined();
    small.observe(unreachable);
    small.observe(unreachable);
    expect(small.everySentFailed()).toBe(
      'the platform could not be reached for 2 intents in a row (ECONNREFUSED)',
    );
    // One intent that reached the platform makes it a run with row failures, not a down platform.
    const mixed = new PlatformDownStreak(10);
    mixed.observe(invalidRow);
    mixed.observe(refused);
    expect(mixed.everySentFailed()).toBeUndefined();
    // A 5xx may be the row's own: only a streak of them stops a run.
    const server = new PlatformDownStreak(10);
    server.observe(overloaded);
    expect(server.everySentFailed()).toBeUndefined();
  });

  it('names the codes resume sends again', () => {
    expect([...PLATFORM_DOWN_CODES].sort()).toEqual(
      [
        PLATFORM_ERROR_CODES.unauthorized,
        PLATFORM_ERROR_CODES.unreachable,
        PLATFORM_ERROR_CODES.server,
      ].sort(),
    );
  });
});
