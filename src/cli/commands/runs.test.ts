import { describe, expect, it } from 'vitest';
import { runFilterOf } from './runs.js';

describe('evsync runs filters', () => {
  const now = new Date('2026-11-27T12:00:00Z');

  it('reads a job, statuses, a trigger and a start as a date or an age', () => {
    expect(
      runFilterOf({ job: 'nightly', status: 'aborted,failed', trigger: 'schedule', since: '12h' }, now),
    ).toEqual({
      jobName: 'nightly',
      statuses: ['aborted', 'failed'],
      trigger: 'schedule',
      since: new Date('2026-11-27T00:00:00Z'),
    });
    expect(runFilterOf({ since: '2026-11-26' }, now).since).toEqual(new Date('2026-11-26T00:00:00Z'));
  });

  it('refuses words it does not take, naming those it does', () => {
    expect(() => runFilterOf({ status: 'broken' }, now)).toThrow(/write one of running, completed/);
    expect(() => runFilterOf({ trigger: 'cron' }, now)).toThrow(/manual, schedule, audit/);
    expect(() => runFilterOf({ since: 'yesterday' }, now)).toThrow(/a date .* or an age/);
  });
});
