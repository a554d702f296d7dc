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
const lost: ProcessOutcome = {
  action: 'failed',
  errorCode: PLATFORM_ERROR_CODES.outcomeUnknown,
  message: 'connection reset',
  attempts: 1,
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
    // Platform-wide failures of several kinds (an overloaded platform) make one streak.
    const mixed = new PlatformDownStreak(3);
    mixed.observe(overloaded);
    mixed.observe(lost);
    expect(mixed.observe(overloaded)).toBe(
      `the platform failed for 3 intents in a row, in several ways (${PLATFORM_ERROR_CODES.outcomeUnknown}, ` +
        `${PLATFORM_ERROR_CODES.server}; the last: POST /user answered 503). It may be down or overloaded: ` +
        '`evsync ping` tells whether it answers',
    );
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
    // A phase whose every sent intent failed so, after an earlier phase went well.
    const later = new PlatformDownStreak(10);
    later.observe({ action: 'created', attempts: 1 });
    later.newPhase();
    later.observe(unreachable);
    expect(later.everySentFailed()).toMatch(/could not be reached for 1 intents/);
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
        PLATFORM_ERROR_CODES.outcomeUnknown,
      ].sort(),
    );
  });
});
