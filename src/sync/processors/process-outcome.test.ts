import { describe, expect, it } from 'vitest';
import { PlatformHttpError } from '../../platform/platform-error.js';
import { failureOutcome } from './process-outcome.js';

const site = { method: 'POST', path: '/user' };

describe('failureOutcome', () => {
  it('counts the tries of the last call: a 500 retried five times is five attempts', () => {
    const error = new PlatformHttpError(site, 500);
    error.attempts = 5;
    expect(failureOutcome(error, 1)).toMatchObject({ action: 'failed', httpStatus: 500, attempts: 5 });
    // A look-up that answered, then an update tried twice: three requests in all.
    error.attempts = 2;
    expect(failureOutcome(error, 2).attempts).toBe(3);
  });

  it('counts a failure that is not the platform’s as the calls made, at least one', () => {
    expect(failureOutcome(new Error('boom'), 0).attempts).toBe(1);
    expect(failureOutcome(new Error('boom'), 2).attempts).toBe(2);
  });
});
